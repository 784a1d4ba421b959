import type { Command } from '../command.js';
import { compactCommand } from './compact.js';
import { demoCommand } from './demo.js';
import { inspectCommand } from './inspect.js';
import { runCommand } from './run.js';
import { showCommand } from './show.js';

/** Every command, in the order the overview lists them. */
export const COMMANDS: readonly Command[] = [
  demoCommand,
  runCommand,
  showCommand,
  inspectCommand,
  compactCommand,
];
