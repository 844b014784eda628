// The client for the editor's look-ups (listSearch, loadOptions): the node's own transport and
// credential over a load-options context. The transport is written for an execute context; it only
// reads the authentication choice, the credential, the node's id and n8n's authenticated request
// helper, so a facade offering exactly those (each calling n8n's real context) is all it needs.
import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { createNodeClient } from '../transport';

export async function clientFor(ctx: ILoadOptionsFunctions): Promise<SellingClient> {
  const facade = {
    getNodeParameter: (name: string, _item: number, fallback?: unknown) =>
      ctx.getNodeParameter(name, fallback),
    getCredentials: (type: string) => ctx.getCredentials(type),
    getNode: () => ctx.getNode(),
    helpers: {
      httpRequestWithAuthentication: (
        ...args: Parameters<ILoadOptionsFunctions['helpers']['httpRequestWithAuthentication']>
      ) => ctx.helpers.httpRequestWithAuthentication.call(ctx, ...args),
    },
  };
  return await createNodeClient(facade as unknown as IExecuteFunctions);
}
