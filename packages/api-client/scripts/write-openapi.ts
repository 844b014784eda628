// `pnpm build` (and `pnpm --filter @selling-kit/api-client openapi`): writes the generated OpenAPI
// document to packages/api-client/openapi.yaml. test/openapi.test.ts fails when the checked-in copy is stale.
import { writeFileSync } from 'node:fs';
import { openApiYaml } from '../src/openapi/index.ts';

const target = new URL('../openapi.yaml', import.meta.url);
writeFileSync(target, openApiYaml());
console.log(`wrote ${target.pathname}`);
