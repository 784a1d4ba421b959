import { defineTool } from 'loopkeeper';

export const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service to production.',
  parameters: {
    type: 'object',
    properties: { service: { type: 'string' } },
    required: ['service'],
  },
  // true, or a function of the parsed arguments (and {callId, toolName, sessionId, runId}).
  needsApproval: ({ service }: { service: string }) => service.startsWith('prod-'),
  // A deploy with an idempotency key is safe to repeat after a crash (see "Resuming").
  idempotent: true,
  execute: async ({ service }: { service: string }, { callId }) =>
    `deployed ${service} (${callId})`,
});
