// n8n's two HTTP surfaces as `selling-kit dev` uses them: the REST API behind the editor (a session
// cookie from /rest/login, only to mint a public-API key) and the public API (/api/v1, X-N8N-API-KEY)
// for credentials, workflows and executions. Errors name the call and status, never a secret.
export interface N8nWorkflow {
  id: string;
  name: string;
  active: boolean;
  nodes: { name: string; type: string; webhookId?: string; parameters: Record<string, unknown> }[];
}

export interface N8nExecution {
  id: string;
  finished: boolean;
  status: string;
  mode: string;
  workflowId: string;
  startedAt: string;
  stoppedAt?: string;
}

export class N8nApi {
  readonly url: string;
  private cookie = '';
  apiKey = '';

  constructor(url: string) {
    this.url = url;
  }

  async login(email: string, password: string): Promise<void> {
    const res = await fetch(`${this.url}/rest/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ emailOrLdapLoginId: email, password }),
    });
    if (res.status !== 200) throw new Error(`n8n login as ${email} failed (${res.status})`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
    if (!cookie) throw new Error('n8n login answered without its n8n-auth cookie');
    this.cookie = cookie.split(';')[0] ?? '';
  }

  private async rest<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/rest${path}`, {
      method,
      headers: { cookie: this.cookie, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`n8n ${method} /rest${path} → ${res.status}`);
    return ((await res.json()) as { data: T }).data;
  }

  /** A public-API key with every scope the owner may grant (labelled, so a user can revoke it). */
  async createApiKey(label: string): Promise<string> {
    const scopes = await this.rest<string[]>('GET', '/api-keys/scopes');
    const key = await this.rest<{ rawApiKey: string }>('POST', '/api-keys', {
      label,
      scopes,
      expiresAt: null,
    });
    return key.rawApiKey;
  }

  /** Whether the key in use opens the public API. */
  async apiKeyWorks(): Promise<boolean> {
    if (!this.apiKey) return false;
    const res = await fetch(`${this.url}/api/v1/workflows?limit=1`, {
      headers: { 'X-N8N-API-KEY': this.apiKey },
    });
    await res.body?.cancel();
    return res.ok;
  }

  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/api/v1${path}`, {
      method,
      headers: { 'X-N8N-API-KEY': this.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      // n8n's messages name fields and rules, never credential data.
      const message = (() => {
        try {
          return String((JSON.parse(text) as { message?: string }).message ?? '');
        } catch {
          return '';
        }
      })();
      throw new Error(
        `n8n ${method} /api/v1${path.split('?')[0]} → ${res.status}${message ? `: ${message}` : ''}`,
      );
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Every page of a public-API list. */
  async list<T>(path: string): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page = await this.api<{ data: T[]; nextCursor?: string | null }>(
        'GET',
        `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page.data);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return all;
  }

  workflows(): Promise<N8nWorkflow[]> {
    return this.list<N8nWorkflow>('/workflows');
  }

  executions(workflowId: string): Promise<N8nExecution[]> {
    return this.list<N8nExecution>(`/executions?workflowId=${encodeURIComponent(workflowId)}`);
  }
}
