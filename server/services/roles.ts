// Moved to server/core/roles.ts (components and presenters read the roles too, and may not
// import services). Re-exported for code written against the old path; import from core.
export * from '../core/roles';
