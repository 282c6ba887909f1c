// The SDK's public types are written out in server/sdk/index.ts (its consumers should not
// import the server's modules) and must stay the shapes the enqueue service takes and
// returns. expectTypeOf does nothing at run time: these assertions fail in `npm test`'s
// typecheck step (tsc --noEmit covers test files) when either side changes alone.
import { describe, it, expectTypeOf } from 'vitest';
import type * as sdk from './index';
import type * as service from '../services/enqueue';

describe("the SDK's types are the enqueue service's", () => {
  it('EnqueueInput, EnqueuedExecution and EnqueueResult have the same shape on both sides', () => {
    expectTypeOf<sdk.EnqueueInput>().toEqualTypeOf<service.EnqueueInput>();
    expectTypeOf<sdk.EnqueuedExecution>().toEqualTypeOf<service.EnqueuedExecution>();
    expectTypeOf<sdk.EnqueueResult>().toEqualTypeOf<service.EnqueueResult>();
  });
});
