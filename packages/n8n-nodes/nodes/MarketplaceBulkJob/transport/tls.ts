// TLS to a Temporal server's HTTP API from the credential's PEM fields: a private CA (a self-hosted
// server), a client certificate and key (mTLS, as the frontend's `requireClientAuth`). n8n's HTTP helper
// takes them as `agentOptions` (Node's https.Agent options). Temporal Cloud needs none of them: its
// certificates are public and an API key authenticates. Errors name the field, never its content.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The credential's field names and labels (the labels are what errors name). */
export const TLS_FIELDS = {
  caCertificate: 'CA Certificate',
  clientCertificate: 'Client Certificate',
  clientPrivateKey: 'Client Private Key',
} as const;

export interface TlsAgentOptions {
  ca?: string;
  cert?: string;
  key?: string;
}

/**
 * A PEM block as pasted: password fields keep no line breaks, so the base64 body may arrive on one line
 * with spaces; PEM readers need the header, the body and the footer on lines of their own.
 */
export function pemText(value: unknown): string | undefined {
  const text = String(value ?? '').trim();
  if (!text) return undefined;
  const blocks = text.match(/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g);
  if (!blocks) return text;
  return blocks
    .map((block) => {
      const [, begin, body, end] = /^(-----BEGIN [A-Z0-9 ]+-----)([\s\S]*?)(-----END [A-Z0-9 ]+-----)$/.exec(
        block,
      )!;
      const lines = body!.replace(/\s+/g, '').match(/.{1,64}/g) ?? [];
      return [begin, ...lines, end].join('\n');
    })
    .join('\n')
    .concat('\n');
}

/** The credential's TLS fields as https.Agent options; none set: undefined (the system's CAs). */
export function tlsAgentOptions(credentials: ICredentialDataDecryptedObject): TlsAgentOptions | undefined {
  const ca = pemText(credentials.caCertificate);
  const cert = pemText(credentials.clientCertificate);
  const key = pemText(credentials.clientPrivateKey);
  if (!ca && !cert && !key) return undefined;
  return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

/**
 * What is wrong with the TLS fields, naming the field (a PEM that does not parse, a certificate without
 * its key or the reverse, TLS fields with an http:// URL), or undefined.
 */
export function tlsProblem(credentials: ICredentialDataDecryptedObject): string | undefined {
  const tls = tlsAgentOptions(credentials);
  if (!tls) return undefined;
  const check = (
    field: keyof typeof TLS_FIELDS,
    value: string | undefined,
    parse: (v: string) => unknown,
  ) => {
    if (value === undefined) return undefined;
    try {
      parse(value);
      return undefined;
    } catch {
      return `${TLS_FIELDS[field]}: not a PEM ${field === 'clientPrivateKey' ? 'private key' : 'certificate'}`;
    }
  };
  const problem =
    check('caCertificate', tls.ca, (v) => new X509Certificate(v)) ??
    check('clientCertificate', tls.cert, (v) => new X509Certificate(v)) ??
    check('clientPrivateKey', tls.key, (v) => createPrivateKey(v));
  if (problem) return problem;
  if (!!tls.cert !== !!tls.key)
    return `${tls.cert ? TLS_FIELDS.clientPrivateKey : TLS_FIELDS.clientCertificate}: mTLS needs both the client certificate and its private key`;
  if (!String(credentials.url ?? '').startsWith('https://'))
    return `HTTP API URL: TLS fields are set, so the URL must start with https:// (got ${String(credentials.url ?? '')})`;
  return undefined;
}

/**
 * A request that failed before any answer, in words naming the field to fix when TLS is the cause (the
 * HTTP client's own message is often empty once n8n wraps it); undefined when TLS is not the cause.
 */
export function tlsFailure(error: unknown, usesClientCertificate: boolean): string | undefined {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  const text = `${code} ${e?.message ?? ''} ${e?.cause?.message ?? ''}`;
  if (
    /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED|UNABLE_TO_GET_ISSUER|CERT_UNTRUSTED/.test(
      text,
    )
  )
    return `${TLS_FIELDS.caCertificate}: the Temporal server's certificate is not signed by this CA (${code || 'untrusted certificate'})`;
  if (/ERR_TLS_CERT_ALTNAME_INVALID/.test(text))
    return `HTTP API URL: the Temporal server's certificate does not name this host (${code})`;
  if (/CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA/i.test(text))
    return usesClientCertificate
      ? `${TLS_FIELDS.clientCertificate}: the Temporal server refused it (${code})`
      : `${TLS_FIELDS.clientCertificate}: the Temporal server requires one (mTLS) (${code})`;
  if (/EPROTO|WRONG_VERSION_NUMBER/i.test(text))
    return `HTTP API URL: the Temporal server does not speak TLS on this port: use http:// (${code})`;
  return undefined;
}
