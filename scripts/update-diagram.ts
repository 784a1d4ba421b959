/**
 * Regenerates the machine diagram in docs/architecture.md from the machine definition.
 * Run with `npm run docs:diagram`; test/docs/architecture.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { agentLoopMachine } from '../machines/agent-loop.machine.js';
import { machineToMermaid } from '../src/runtime/machine-diagram.js';
import { architectureDocPath, replaceDiagram } from './diagram-section.js';

const document = readFileSync(architectureDocPath, 'utf8');
writeFileSync(architectureDocPath, replaceDiagram(document, machineToMermaid(agentLoopMachine)));
console.log(`updated ${architectureDocPath}`);
