// `@selling-kit/api-client/openapi`: the generated OpenAPI 3.1 document, as an object and as YAML.
// Kept out of the core so the core's only runtime dependency stays zod (YAML needs the `yaml` package).
import { stringify } from 'yaml';
import { openApiDocument } from './document.ts';

export {
  API_KEY_SCHEME,
  OAUTH_SCHEME,
  OPENAPI_DOCUMENT_OPERATION_ID,
  OPENAPI_DOCUMENT_PATH,
  openApiDocument,
} from './document.ts';
export { CONTRACT_DIR_ENV, type ContractExchange } from './contract.ts';

/** The document as YAML, byte-for-byte what packages/api-client/openapi.yaml holds. */
export function openApiYaml(): string {
  return stringify(openApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false });
}
