import type { ProtocolProblem, ProtocolProblemKind } from '../types.js';

/**
 * Collects what is wrong with one chat message. Problems carry the message's index, which is
 * also the index of the item it becomes, since messages and items correspond one to one.
 */
export class MessageProblems {
  readonly list: ProtocolProblem[] = [];
  readonly #index: number;
  readonly #role: string;

  constructor(index: number, role: string) {
    this.#index = index;
    this.#role = role;
  }

  invalid(message: string, id?: string): void {
    this.#add('invalid_item', message, id);
  }

  unsupported(message: string, id?: string): void {
    this.#add('unsupported_message', message, id);
  }

  /** Refuses every present field outside `allowed`, so nothing is dropped without a word. */
  onlyFields(record: Record<string, unknown>, allowed: readonly string[], where = ''): void {
    for (const [field, value] of Object.entries(record)) {
      if (value === undefined || allowed.includes(field)) continue;
      this.unsupported(`field '${where}${field}' is not supported`);
    }
  }

  #add(kind: ProtocolProblemKind, message: string, id: string | undefined): void {
    const text = `${this.#role} message: ${message}`;
    this.list.push(
      id === undefined
        ? { index: this.#index, kind, message: text }
        : { index: this.#index, id, kind, message: text },
    );
  }
}
