import { readFileSync } from 'node:fs';
import { agentLoopMachine } from 'loopkeeper';
import { machineToMermaid } from 'loopkeeper/runtime';
import { describe, expect, it } from 'vitest';
import { architectureDocPath, extractDiagram } from '../../scripts/diagram-section.js';

describe('docs/architecture.md', () => {
  it('shows the diagram generated from the current machine definition (run npm run docs:diagram)', () => {
    const document = readFileSync(architectureDocPath, 'utf8');
    expect(extractDiagram(document)).toBe(machineToMermaid(agentLoopMachine));
  });

  it('names every state of the machine in its diagram', () => {
    const diagram = machineToMermaid(agentLoopMachine);
    for (const state of Object.keys(agentLoopMachine.root.states)) expect(diagram).toContain(state);
  });
});
