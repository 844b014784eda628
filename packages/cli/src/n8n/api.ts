// n8n's two HTTP surfaces as `selling-kit dev` uses them: the REST API behind the editor (a session
// cookie from /rest/login, only to mint a public-API key) and the public API (/api/v1, X-N8N-API-KEY)
// for credentials, workflows and executions. Errors name the call and status, never a secret. The
// real-n8n tests of the nodes package drive n8n through this class too (test/e2e/harness.mts).
export interface N8nWorkflow {
  id: string;
  name: string;
  active: boolean;
  nodes: { name: string; type: string; webhookId?: string; parameters: Record<string, unknown> }[];
}

export interface N8nNodeRun {
  data?: { main?: ({ json: Record<string, unknown> }[] | null)[] };
  error?: { message?: string };
}

export interface N8nExecution {
  id: string;
  finished: boolean;
  status: string;
  mode: string;
  workflowId: string;
  startedAt: string;
  stoppedAt?: string;
  /** Only when asked for with `includeData`. */
  data?: { resultData?: { runData?: Record<string, N8nNodeRun[]>; error?: { message?: string } } };
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

  /** A call of the editor's REST API (the session of login()); its `data`. */
  async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/rest${path}`, {
      method,
      headers: { cookie: this.cookie, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw this.failure(method, `/rest${path}`, res.status, text);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  }

  /** The error of a failed call: n8n's message only (it names fields and rules, never credential data). */
  protected failure(method: string, path: string, status: number, body: string): Error {
    const message = (() => {
      try {
        return String((JSON.parse(body) as { message?: string }).message ?? '');
      } catch {
        return '';
      }
    })();
    return new Error(`n8n ${method} ${path.split('?')[0]} → ${status}${message ? `: ${message}` : ''}`);
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
    if (!res.ok) throw this.failure(method, `/api/v1${path}`, res.status, text);
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

  /** Every execution of a workflow, newest first (with each node's output when `includeData`). */
  executions(workflowId: string, options: { includeData?: boolean } = {}): Promise<N8nExecution[]> {
    return this.list<N8nExecution>(
      `/executions?workflowId=${encodeURIComponent(workflowId)}${options.includeData ? '&includeData=true' : ''}`,
    );
  }
}
