import { describe, expect, it } from 'vitest';
import { emptyForm, formFromDefinition, formToInput, serverErrorsToForm, validateForm, type TaskForm } from './task-form-model';
import { inheritField, releaseEdited, withInheritedValues } from './task-form-model';
import { INHERITABLE_PATHS } from '@/server/core/task-definition';
import { taskDefinitionSchema } from '@/server/core/task-definition';
import { configsEqual } from '@/server/core/config-diff';

const stored = taskDefinitionSchema.parse({
  name: 'send-email',
  description: 'Transactional mail',
  routing: { strategy: 'hash', keyPath: 'tenant' },
  stream: { keyPath: 'order.id' },
  groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50, 'globex.eu': 5 } }],
});

function edit(f: TaskForm, fn: (f: TaskForm) => void): TaskForm {
  const copy = structuredClone(f);
  fn(copy);
  return copy;
}

describe('form ⇄ definition', () => {
  it('round-trips a stored definition exactly', () => {
    const back = taskDefinitionSchema.parse(formToInput(formFromDefinition(stored)));
    expect(configsEqual({ tasks: [back] }, { tasks: [stored] })).toBe(true);
  });

  it('empty optional strings become absent fields', () => {
    const f = edit(formFromDefinition(stored), (x) => {
      x.description = '  ';
      x.streamKeyPath = '';
      x.routing = { strategy: 'round-robin', keyPath: '' };
      x.groups[0]!.keyPath = '';
    });
    const input = formToInput(f);
    expect(input.description).toBeUndefined();
    expect(input.stream).toBeUndefined();
    expect(input.routing).toEqual({ strategy: 'round-robin', keyPath: undefined });
    expect(input.groups?.[0]?.keyPath).toBeUndefined();
  });

  it.each<[string, number | undefined, string, number | undefined]>([
    ['absent stays absent', undefined, '', undefined],
    ['a set delay round-trips', 15_000, '15000', 15_000],
    ['0 is a value, not absent', 0, '0', 0],
  ])('thresholds.alertAfterMs: %s', (_n, stored, text, back) => {
    const d = taskDefinitionSchema.parse({ name: 'x', thresholds: stored === undefined ? {} : { alertAfterMs: stored } });
    const f = formFromDefinition(d);
    expect(f.alertAfterMs).toBe(text);
    expect(f.thresholds).not.toHaveProperty('alertAfterMs');
    const input = formToInput(f);
    expect(input.thresholds?.alertAfterMs).toBe(back);
    expect(input.thresholds ? 'alertAfterMs' in input.thresholds : false).toBe(back !== undefined);
  });

  it('a new task starts from the schema defaults with no name', () => {
    const f = emptyForm();
    expect(f.name).toBe('');
    expect(f.concurrency).toBe(10);
    expect(validateForm(f)).toHaveProperty('name');
  });
});

describe('validateForm', () => {
  const base = formFromDefinition(stored);
  it.each<{ name: string; fn: (f: TaskForm) => void; expected: Record<string, string> }>([
    { name: 'valid', fn: () => {}, expected: {} },
    { name: 'an empty number field', fn: (f) => (f.concurrency = NaN), expected: { concurrency: 'must be a number' } },
    { name: 'limit 0', fn: (f) => (f.groups[0]!.limit = 0), expected: { 'groups.0.limit': 'must be at least 1' } },
    { name: 'thresholds warning ≥ critical', fn: (f) => (f.thresholds.dlqRate = { warning: 0.5, critical: 0.1 }), expected: { 'thresholds.dlqRate.warning': 'warning must be below critical' } },
    { name: 'alert delay typed as text', fn: (f) => (f.alertAfterMs = '15s'), expected: { 'thresholds.alertAfterMs': 'must be a number' } },
    { name: 'alert delay below 0', fn: (f) => (f.alertAfterMs = '-5'), expected: { 'thresholds.alertAfterMs': 'must be at least 0' } },
    { name: 'alert delay cleared (blank): the default', fn: (f) => (f.alertAfterMs = '  '), expected: {} },
    { name: 'malformed key path', fn: (f) => (f.streamKeyPath = 'a..b'), expected: { 'stream.keyPath': 'must be a dot path such as "tenant" or "customer.id"' } },
    { name: 'hash without key path', fn: (f) => (f.routing.keyPath = ''), expected: { 'routing.keyPath': 'hash routing needs a key path' } },
    {
      name: 'group declared twice',
      fn: (f) => f.groups.push({ ...structuredClone(f.groups[0]!), uid: 'dup', overrides: [] }),
      expected: { 'groups.1.name': 'group "tenant" is declared twice' },
    },
    {
      // The schema's cross-field check would wait for every field to parse; the form flags it as typed.
      name: 'group declared twice while another field is invalid',
      fn: (f) => {
        f.concurrency = NaN;
        f.groups.push({ ...structuredClone(f.groups[0]!), uid: 'dup2', name: ' tenant ', overrides: [] });
      },
      expected: { concurrency: 'must be a number', 'groups.1.name': 'group "tenant" is declared twice' },
    },
    { name: 'retry rate above 100%', fn: (f) => (f.thresholds.retryRate = { warning: 0.5, critical: 1.5 }), expected: { 'thresholds.retryRate.critical': 'must be at most 100%' } },
    { name: 'DLQ rate below 0', fn: (f) => (f.thresholds.dlqRate = { warning: -0.1, critical: 0.5 }), expected: { 'thresholds.dlqRate.warning': 'must be at least 0' } },
    { name: 'depth is not a rate: no 100% bound', fn: (f) => (f.thresholds.depth = { warning: 50, critical: 5000 }), expected: {} },
  ])('$name', ({ fn, expected }) => {
    expect(validateForm(edit(base, fn))).toEqual(expected);
  });

  it('override errors land on their row: bad limit, empty key, duplicate key', () => {
    const f = edit(base, (x) => {
      const [acme, globex] = x.groups[0]!.overrides;
      acme!.limit = 0;
      globex!.key = '';
      x.groups[0]!.overrides.push({ uid: 'o-dup', key: 'acme', limit: 3 });
    });
    const [acme, globex] = f.groups[0]!.overrides;
    expect(validateForm(f)).toEqual({
      [`groups.0.overrides.#${acme!.uid}.limit`]: 'must be at least 1',
      [`groups.0.overrides.#${globex!.uid}.key`]: 'must not be empty (the key this limit is for)',
      'groups.0.overrides.#o-dup.key': 'must be unique: "acme" has an override already',
    });
  });

  it('server errors on override keys map to rows too', () => {
    const acme = base.groups[0]!.overrides[0]!;
    expect(serverErrorsToForm(base, { 'groups.0.overrides.acme': 'must be at least 1', concurrency: 'x' })).toEqual({
      [`groups.0.overrides.#${acme.uid}.limit`]: 'must be at least 1',
      concurrency: 'x',
    });
  });
});

// Limits (issue #19): priorities
describe('priority block', () => {
  it.each([
    ['absent, untouched', undefined, (_: TaskForm) => {}, undefined],
    ['absent, default changed', undefined, (f: TaskForm) => void (f.priority.default = 5), { default: 5, agingMs: 60_000 }],
    ['absent, aging changed', undefined, (f: TaskForm) => void (f.priority.agingMs = 1000), { default: 0, agingMs: 1000 }],
    ['explicit at the defaults, untouched', { default: 0, agingMs: 60_000 }, (_: TaskForm) => {}, { default: 0, agingMs: 60_000 }],
    ['explicit, changed', { default: 3, agingMs: 500 }, (f: TaskForm) => void (f.priority.default = 4), { default: 4, agingMs: 500 }],
  ])('%s', (_name, priority, change, out) => {
    const def = taskDefinitionSchema.parse({ name: 't', ...(priority ? { priority } : {}) });
    const input = formToInput(edit(formFromDefinition(def), change));
    expect(input.priority).toEqual(out);
    if (out === undefined) expect(configsEqual({ tasks: [taskDefinitionSchema.parse(input)] }, { tasks: [def] })).toBe(true);
  });

  it.each([
    [(f: TaskForm) => void (f.priority.default = 1001), 'priority.default', 'must be at most 1000'],
    [(f: TaskForm) => void (f.priority.default = -1), 'priority.default', 'must be at least 0'],
    [(f: TaskForm) => void (f.priority.agingMs = 0), 'priority.agingMs', 'must be at least 1'],
    [(f: TaskForm) => void (f.priority.agingMs = 1.5), 'priority.agingMs', 'must be a whole number'],
  ])('reports %#: %s %s', (change, path, message) => {
    expect(validateForm(edit(emptyForm(), (f) => { f.name = 'ok'; change(f); }))[path]).toBe(message);
  });
});

// Limits (issue #19): rate limits
describe('rate limits', () => {
  const rated = taskDefinitionSchema.parse({
    name: 'r',
    rate: { limit: 100, per: 60_000, burst: 5 },
    rateCostPath: 'weight',
    groups: [{ name: 'tenant', limit: 20, rate: { limit: 5, per: 1000, burst: 2, overrides: { acme: { limit: 50 }, slow: { per: 60_000, burst: 0 } } } }],
  });

  it('round-trips rates and overrides exactly (an override keeps only the fields it sets)', () => {
    const f = formFromDefinition(rated);
    expect(f.groups[0]!.rate.overrides.map((o) => [o.key, o.limit, o.per, o.burst])).toEqual([
      ['acme', '50', '', ''],
      ['slow', '', '60000', '0'],
    ]);
    const back = taskDefinitionSchema.parse(formToInput(f));
    expect(configsEqual({ tasks: [back] }, { tasks: [rated] })).toBe(true);
    expect(back.groups[0]!.rate!.overrides).toEqual({ acme: { limit: 50 }, slow: { per: 60_000, burst: 0 } });
  });

  it('off = absent; on = the block', () => {
    const f = emptyForm();
    f.name = 'x';
    expect(formToInput(f).rate).toBeUndefined();
    expect(formToInput(f).rateCostPath).toBeUndefined();
    f.rate.enabled = true;
    f.rate.limit = 7;
    expect(formToInput(f).rate).toEqual({ limit: 7, per: 1000, burst: 0 });
    const g = edit(formFromDefinition(rated), (x) => void (x.groups[0]!.rate.enabled = false));
    expect(formToInput(g).groups![0]!.rate).toBeUndefined();
  });

  it.each([
    [(f: TaskForm) => void (f.rate.per = 0), 'rate.per', 'must be at least 1'],
    [(f: TaskForm) => void (f.groups[0]!.rate.burst = -1), 'groups.0.rate.burst', 'must be at least 0'],
    [(f: TaskForm) => void (f.groups[0]!.rate.limit = Number.NaN), 'groups.0.rate.limit', 'must be a number'],
    [(f: TaskForm) => void (f.rateCostPath = '1x'), 'rateCostPath', 'must be a dot path such as "tenant" or "customer.id"'],
  ])('reports %#: %s', (change, path, message) => {
    expect(validateForm(edit(formFromDefinition(rated), change))[path]).toBe(message);
  });

  it('reports rate override rows by row: empty key, duplicate key, a field that is not a number', () => {
    const f = edit(formFromDefinition(rated), (x) => {
      const rows = x.groups[0]!.rate.overrides;
      rows.push({ uid: 'e', key: '', limit: '', per: '', burst: '' }, { uid: 'd', key: 'acme', limit: '3', per: '', burst: '' });
      rows[1]!.per = 'soon';
    });
    const errors = validateForm(f);
    const slow = f.groups[0]!.rate.overrides[1]!.uid;
    expect(errors).toMatchObject({
      'groups.0.rate.overrides.#e.key': 'must not be empty (the key this rate is for)',
      'groups.0.rate.overrides.#d.key': 'must be unique: "acme" has a rate override already',
      [`groups.0.rate.overrides.#${slow}.per`]: 'must be a number',
    });
    // the server's paths (by key) land on the row too
    expect(serverErrorsToForm(f, { 'groups.0.rate.overrides.slow.per': 'must be at least 1' })).toEqual({ [`groups.0.rate.overrides.#${slow}.per`]: 'must be at least 1' });
  });
});

// ─── Fleet defaults: inherited fields in the draft ───
describe('inherited fields', () => {
  const effective = { timeoutMs: 45_000, retry: { maxAttempts: 7, backoff: 'fixed', baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.2 }, thresholds: { depth: { warning: 5, critical: 10 } } };

  it('a new task inherits every field and shows the fleet values', () => {
    const f = withInheritedValues(emptyForm(), effective);
    expect(f.inherited).toEqual([...INHERITABLE_PATHS]);
    expect(f.timeoutMs).toBe(45_000);
    expect(f.retry.maxAttempts).toBe(7);
    expect(f.thresholds.depth).toEqual({ warning: 5, critical: 10 });
    expect(formToInput(f).inherited).toEqual([...INHERITABLE_PATHS]);
  });

  it('editing an inherited field makes it the task’s own; others stay inherited', () => {
    const prev = withInheritedValues(emptyForm(), effective);
    const next = structuredClone(prev);
    next.retry.maxAttempts = 2;
    const released = releaseEdited(prev, next);
    expect(released.inherited).not.toContain('retry.maxAttempts');
    expect(released.inherited).toContain('retry.jitter');
    // A no-op edit keeps everything inherited.
    expect(releaseEdited(prev, structuredClone(prev)).inherited).toEqual(prev.inherited);
  });

  it('"Use default" hands a field back with the fleet value', () => {
    const own = { ...withInheritedValues(emptyForm(), effective), inherited: [] as TaskForm['inherited'], timeoutMs: 5 };
    const back = inheritField(own, 'timeoutMs', effective);
    expect(back.timeoutMs).toBe(45_000);
    expect(back.inherited).toEqual(['timeoutMs']);
    expect(formToInput({ ...own, inherited: [] }).inherited).toBeUndefined();
  });
});

describe('fair share in the form (issue #19)', () => {
  const base = () => formFromDefinition(taskDefinitionSchema.parse({ name: 'x', groups: [{ name: 'tenant', limit: 5 }] }));
  it('a fifo task round-trips without order or weights', () => {
    const input = formToInput(base());
    expect(input.order).toBeUndefined();
    expect(input.groups![0]!.weights).toBeUndefined();
  });
  it('fair share with weights round-trips', () => {
    const f = base();
    f.order = 'fair';
    f.groups[0]!.weights = 'acme=3, globex = 2';
    const input = formToInput(f);
    expect(input).toMatchObject({ order: 'fair', groups: [{ name: 'tenant', weights: { acme: 3, globex: 2 } }] });
    const back = formFromDefinition(taskDefinitionSchema.parse(input));
    expect(back.order).toBe('fair');
    expect(back.groups[0]!.weights).toBe('acme=3, globex=2');
    expect(validateForm(f)).toEqual({});
  });
  it.each([
    ['acme', 'write key=weight pairs separated by commas, each key once ("acme")'],
    ['acme=3, acme=4', 'write key=weight pairs separated by commas, each key once ("acme=4")'],
    ['acme=0', 'acme: must be at least 1'],
    ['acme=x', 'acme: must be a number'],
  ])('weights %s → %s on the group’s weights field', (text, message) => {
    const f = base();
    f.order = 'fair';
    f.groups[0]!.weights = text;
    expect(validateForm(f)['groups.0.weights']).toBe(message);
  });
  it('fair share without a group names the order field', () => {
    const f = formFromDefinition(taskDefinitionSchema.parse({ name: 'x' }));
    f.order = 'fair';
    expect(validateForm(f).order).toBe('fair share needs a concurrency group whose keys share the task');
  });
  it('maps a server weight error onto the group’s weights field', () => {
    expect(serverErrorsToForm(base(), { 'groups.0.weights.acme': 'must be at least 1' })).toEqual({ 'groups.0.weights': 'acme: must be at least 1' });
  });
});

describe('task alert policy and per-key policies in the form', () => {
  const withPolicies = taskDefinitionSchema.parse({
    name: 'keyed',
    thresholds: { clearAfterMs: 5000, hysteresis: 0, waitP99Ms: { warning: 100, critical: 200 }, keyWaitMs: { warning: 3000, critical: 9000 } },
    groups: [
      {
        name: 'tenant',
        limit: 2,
        keyPolicies: {
          acme: { retry: { maxAttempts: 9, backoff: 'fixed' }, waitMs: { warning: 1000, critical: 5000 }, timeoutMs: 1500, alertAfterMs: 0, clearAfterMs: 2000, hysteresis: 0.3 },
          globex: { retry: { jitter: 0 } },
        },
      },
    ],
  });

  it('round-trips exactly (hysteresis 0 stays a value)', () => {
    const f = formFromDefinition(withPolicies);
    expect(f.alertPolicy).toEqual({ clearAfterMs: '5000', hysteresis: '0', waitWarning: '100', waitCritical: '200', keyWaitWarning: '3000', keyWaitCritical: '9000' });
    expect(f.groups[0]!.keyPolicies[0]).toMatchObject({ timeoutMs: '1500', alertAfterMs: '0', clearAfterMs: '2000', hysteresis: '0.3' });
    const back = taskDefinitionSchema.parse(formToInput(f));
    expect(configsEqual({ tasks: [back] }, { tasks: [withPolicies] })).toBe(true);
  });

  it('blank fields are absent: the task inherits, the key follows the task', () => {
    const f = edit(formFromDefinition(withPolicies), (x) => {
      x.alertPolicy = { clearAfterMs: '', hysteresis: ' ', waitWarning: '', waitCritical: '', keyWaitWarning: '', keyWaitCritical: '' };
      x.groups[0]!.keyPolicies[1]!.jitter = '';
    });
    const input = formToInput(f);
    expect(input.thresholds).not.toHaveProperty('clearAfterMs', expect.anything());
    const parsed = taskDefinitionSchema.parse(input);
    expect(parsed.thresholds.clearAfterMs).toBeUndefined();
    expect(parsed.thresholds.waitP99Ms).toBeUndefined();
    expect(parsed.thresholds.keyWaitMs).toBeUndefined();
    expect(parsed.groups[0]!.keyPolicies).toEqual({ acme: withPolicies.groups[0]!.keyPolicies!.acme, globex: {} });
  });

  it('errors land on the row and field that caused them', () => {
    const f = edit(formFromDefinition(withPolicies), (x) => {
      x.alertPolicy.hysteresis = '2';
      x.alertPolicy.waitWarning = '';
      x.groups[0]!.keyPolicies[0]!.maxAttempts = 'lots';
      x.groups[0]!.keyPolicies[0]!.waitCritical = '';
      x.groups[0]!.keyPolicies.push({ ...x.groups[0]!.keyPolicies[1]!, uid: 'dup' });
      x.groups[0]!.keyPolicies[0]!.timeoutMs = '0';
      x.groups[0]!.keyPolicies[0]!.hysteresis = '1.5';
      x.groups[0]!.keyPolicies[0]!.alertAfterMs = 'soon';
      x.alertPolicy.keyWaitWarning = '9999';
    });
    const [acme, globex] = f.groups[0]!.keyPolicies;
    const e = validateForm(f);
    expect(e['thresholds.hysteresis']).toBe('must be at most 0.9');
    expect(e['thresholds.waitP99Ms.warning']).toBe('must be a number');
    expect(e[`groups.0.keyPolicies.#${acme!.uid}.maxAttempts`]).toBe('must be a number');
    expect(e[`groups.0.keyPolicies.#${acme!.uid}.waitCritical`]).toBe('must be a number');
    expect(globex).toBeDefined();
    expect(e['groups.0.keyPolicies.#dup.key']).toBe('must be unique: "globex" has a policy already');
    expect(e[`groups.0.keyPolicies.#${acme!.uid}.timeoutMs`]).toBe('must be at least 1');
    expect(e[`groups.0.keyPolicies.#${acme!.uid}.hysteresis`]).toBe('must be at most 0.9');
    expect(e[`groups.0.keyPolicies.#${acme!.uid}.alertAfterMs`]).toBe('must be a number');
    expect(e['thresholds.keyWaitMs.warning']).toBe('warning must be below critical');
  });

  it('a server error by key maps to the row', () => {
    const f = formFromDefinition(withPolicies);
    const acme = f.groups[0]!.keyPolicies[0]!;
    expect(serverErrorsToForm(f, { 'groups.0.keyPolicies.acme.retry.maxDelayMs': 'must be at least baseDelayMs (1000)' })).toEqual({
      [`groups.0.keyPolicies.#${acme.uid}.maxDelayMs`]: 'must be at least baseDelayMs (1000)',
    });
  });
});
