// Moved to server/core/validate-input.ts (presenters validate their input too, and may not
// import services). Re-exported for code written against the old path; import from core.
export * from '../core/validate-input';
