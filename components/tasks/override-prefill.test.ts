import { describe, expect, it } from 'vitest';
import { prefillOverride } from './override-prefill';
import { formFromDefinition, formToInput } from './task-form-model';
import { taskDefinitionSchema } from '@/server/core/task-definition';

const form = formFromDefinition(
  taskDefinitionSchema.parse({ name: 'send-email', groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant', overrides: { globex: 2 } }] }),
);

describe('prefillOverride', () => {
  it('adds a row for a new key at the group limit, leaving the original draft alone', () => {
    const p = prefillOverride(form, 'tenant=acme');
    expect(p?.status).toBe('added');
    expect(formToInput(p!.form).groups![0]!.overrides).toEqual({ globex: 2, acme: 8 });
    expect(formToInput(form).groups![0]!.overrides).toEqual({ globex: 2 });
  });

  it('points at the existing row of a key that already has an override', () => {
    const p = prefillOverride(form, 'tenant=globex');
    expect(p).toMatchObject({ status: 'exists', uid: form.groups[0]!.overrides[0]!.uid });
    expect(p!.form).toBe(form);
  });

  it('keeps keys containing "=" whole (only the first one separates the group)', () => {
    expect(formToInput(prefillOverride(form, "tenant=a=b")!.form).groups![0]!.overrides).toMatchObject({ 'a=b': 8 });
  });

  it('reports a group the task does not have, and ignores malformed parameters', () => {
    expect(prefillOverride(form, 'region=eu')).toMatchObject({ status: 'no-group', group: 'region', key: 'eu' });
    for (const bad of [null, undefined, '', 'tenant', '=acme', 'Tenant=acme', 'tenant=', 'tenant=a\u0000b', `tenant=${'x'.repeat(201)}`, 'tenant=\ud800']) {
      expect(prefillOverride(form, bad)).toBeNull();
    }
  });
});
