/**
 * One contender's whole session in a process of its own, so its peak RSS is its own. Prints
 * one JSON line: every step's time, the session's CPU and wall time, RSS before and at peak.
 */
import { CONTENDERS, type ContenderName } from './contenders.js';
import { buildStepScript, type SessionShape, StepClock } from './script.js';

const [name, shape = 'lean', toolCalls = '2000'] = process.argv.slice(2) as [
  ContenderName,
  SessionShape,
  string?,
];
const contender = CONTENDERS[name];
if (contender === undefined) throw new Error(`bench: no contender ${name}`);
const script = await buildStepScript({ shape, toolCalls: Number(toolCalls) });
globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const clock = new StepClock();
const cpuBefore = process.cpuUsage();
const started = performance.now();
await contender.run(script, clock);
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({
    name,
    shape,
    steps: clock.steps,
    calls: clock.calls,
    answers: script.answers.length,
    wallMs: wall,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBefore,
    peakRss: process.resourceUsage().maxRSS * 1024,
  }),
);
