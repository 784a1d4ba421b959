/**
 * Profiles loopkeeper's contender over a window of steps only (the CPU profile of the whole
 * session is mostly module loading): `node --expose-gc --import tsx
 * bench/suite/steps/profile-window.ts <from> <to> <out.cpuprofile>`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { CONTENDERS } from './contenders.js';
import { buildStepScript, StepClock } from './script.js';

const [from = '150', to = '250', out = 'steps.cpuprofile'] = process.argv.slice(2);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });

/** Starts the profiler when the clock reaches `from` steps and stops it at `to`. */
class WindowClock extends StepClock {
  #pending: Promise<unknown> = Promise.resolve();
  override called(): void {
    super.called();
    if (this.steps.length === Number(from)) this.#pending = session.post('Profiler.start');
    if (this.steps.length === Number(to)) {
      this.#pending = this.#pending
        .then(() => session.post('Profiler.stop'))
        .then(({ profile }) => writeFileSync(out, JSON.stringify(profile)));
    }
  }
  done(): Promise<unknown> {
    return this.#pending;
  }
}

const script = await buildStepScript({ shape: 'lean', toolCalls: Number(to) + 50 });
const clock = new WindowClock();
await CONTENDERS.loopkeeper.run(script, clock);
await clock.done();
const window = clock.steps.slice(Number(from), Number(to)).sort((left, right) => left - right);
console.log(`steps ${from}-${to}: median ${window[window.length >> 1]?.toFixed(3)} ms`);
