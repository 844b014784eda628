// The failure converter of every worker and client of selling-kit: failure messages and stack traces are
// encoded as a payload (`encodeCommonAttributes`), so they go through the payload codec and are sealed in
// history like any other payload (a message may name a credential or a feed URL). Clients with the default
// converter still read them (decoding encoded attributes is always on in the SDK).
// CommonJS because the SDK require()s this file by path (DataConverter.failureConverterPath) in workers
// and clients, and bundles it into the workflow code.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
