import type { Item } from '../../src/index.js';
import { workFactsOf } from '../../src/testing/index.js';
import { countRequest, type TokenCounter } from '../../src/tokens/index.js';
import { isVisible, visibleText } from './retention.js';

interface Price {
  readonly read: number;
  readonly write: number;
}

/**
 * What any strategy that keeps all of the earlier work visible must pay at least: each request
 * holds the step's new items whole, the goal, and every earlier fact (path, error line,
 * identifier) the new items do not show, each as its first 160 characters and nothing else;
 * the instructions, tools, goal and facts are billed as the cheaper of uncached or a cached
 * prefix of at least `cacheMinimum` tokens, as though they never changed. No cache break, no
 * kept item and no summary's wording is billed, so no real strategy reaches it.
 */
export function keepingFloorBill({
  requests,
  instructions,
  counter,
  toolTokens,
  prices,
  cacheMinimum,
  into,
}: {
  readonly requests: readonly (readonly Item[])[];
  readonly instructions: string;
  readonly counter: TokenCounter;
  readonly toolTokens: number;
  readonly prices: readonly Price[];
  readonly cacheMinimum: number;
  into: number[];
}): void {
  const head = countRequest({ counter, items: [], instructions }) + toolTokens;
  let previous: readonly Item[] = [];
  for (const [index, request] of requests.entries()) {
    const seen = new Set(previous.map((item) => item.id));
    const fresh = request.filter((item) => !seen.has(item.id));
    const goal = request.find((item) => item.kind === 'user');
    const shown = goal === undefined || fresh.includes(goal) ? fresh : [goal, ...fresh];
    const visible = visibleText(instructions, shown);
    const facts = workFactsOf(previous);
    const missing = [...facts.paths, ...facts.errorLines, ...facts.identifiers].filter(
      (fact) => !isVisible(fact, visible),
    );
    const context =
      head +
      (goal === undefined || fresh.includes(goal) ? 0 : counter.countItem(goal)) +
      missing.reduce((sum, fact) => sum + counter.countText(fact.slice(0, 160)) + 1, 0);
    const tokens = fresh.reduce((sum, item) => sum + counter.countItem(item), 0);
    prices.forEach((price, position) => {
      const whole = context + tokens;
      const uncached = (whole >= cacheMinimum ? price.write : 1) * whole;
      const cached = price.write * tokens + price.read * Math.max(cacheMinimum, context);
      into[position] =
        (into[position] ?? 0) + (index === 0 ? uncached : Math.min(uncached, cached));
    });
    previous = request;
  }
}
