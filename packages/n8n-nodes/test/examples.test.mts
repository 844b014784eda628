// The shipped example workflows (examples/*.json) say what they do and hide no failure (issue 24 item
// 5): their triggers are the one-credential version 3 registering automatically, no node continues
// silently on an error, an error output always leads somewhere visible, the notes match the nodes
// (the wait) and hold no command-line instructions; `selling-kit dev`'s copy keeps note and wait
// aligned. The executed proof is in test/e2e/trigger-setup.e2e.test.mts.
// @needs n8n-package
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adaptExample } from '../../cli/src/n8n/provision.ts';
import { DISPATCH_WEBHOOK_PATH } from '../../cli/src/commands/dev-orders.ts';
import { PACKAGE_DIR } from './e2e/harness.mts';

interface Node {
  name: string;
  type: string;
  typeVersion: number;
  onError?: string;
  parameters: Record<string, unknown>;
  credentials?: Record<string, { id: string; name: string }>;
}
interface Workflow {
  name: string;
  nodes: Node[];
  connections: Record<string, { main: ({ node: string }[] | null)[] }>;
}

const DIR = join(PACKAGE_DIR, 'examples');
const examples: Workflow[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Workflow);
const notesOf = (w: Workflow) =>
  w.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote').map((n) => String(n.parameters.content));

/** The examples that react to marketplace events (the others take the worker's order events). */
const reacting = (w: Workflow) => w.name !== 'Dispatch reminders';

describe.each(examples.map((w) => [w.name, w] as const))('example "%s"', (_name, workflow) => {
  it('starts with a trigger: a version-3 Marketplace Trigger (one credential, registered automatically), or the order events webhook', () => {
    const triggers = workflow.nodes.filter((n) => n.type.endsWith('.marketplaceTrigger'));
    if (!reacting(workflow)) {
      const webhook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
      expect(webhook.parameters).toMatchObject({ httpMethod: 'POST', path: DISPATCH_WEBHOOK_PATH });
      return;
    }
    expect(triggers.length).toBeGreaterThan(0);
    for (const trigger of triggers) {
      expect(trigger.typeVersion).toBe(3);
      expect(Object.keys(trigger.credentials ?? {})).toEqual(['marketplaceApi']);
      expect(trigger.parameters).toMatchObject({
        authentication: 'apiKey',
        webhookRegistration: 'automatic',
      });
    }
  });

  it('hides no failure: no silent Continue, and every error output leads to a node', () => {
    for (const node of workflow.nodes) {
      expect({ node: node.name, onError: node.onError }).not.toEqual({
        node: node.name,
        onError: 'continueRegularOutput',
      });
      if (node.onError === 'continueErrorOutput')
        expect(workflow.connections[node.name]?.main[1]?.length ?? 0).toBeGreaterThan(0);
    }
  });

  it('keeps command-line instructions out of its notes', () => {
    for (const note of notesOf(workflow)) expect(note).not.toMatch(/selling-kit|pnpm|`[a-z-]+ [a-z-]+ --/);
  });
});

describe('"Offers to likers"', () => {
  const offers = examples.find((w) => w.name === 'Offers to likers')!;
  const wait = offers.nodes.find((n) => n.type === 'n8n-nodes-base.wait')!;

  it('says the wait its Wait node makes', () => {
    expect(wait.parameters).toMatchObject({ amount: 1, unit: 'hours' });
    expect(notesOf(offers).join('\n')).toMatch(/waits an hour/);
  });

  it("`selling-kit dev`'s copy shortens the wait and says so in the note", () => {
    const ref = { id: '1', name: 'x' };
    const adapted = adaptExample(offers as never, { shop: ref, usShop: ref, webhook: ref, temporal: ref });
    const shortWait = adapted.nodes.find((n) => n.type === 'n8n-nodes-base.wait')!;
    expect(shortWait.parameters).toMatchObject({ amount: 5, unit: 'seconds' });
    const note = adapted.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote')!;
    expect(String(note.parameters.content)).toMatch(/waits 5 seconds \(an hour in the shipped example\)/);
  });
});
