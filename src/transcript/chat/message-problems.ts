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

  #add(kind: ProtocolProblemKind, message: string, id: string | undefined): void {
    const text = `${this.#role} message: ${message}`;
    this.list.push(
      id === undefined
        ? { index: this.#index, kind, message: text }
        : { index: this.#index, id, kind, message: text },
    );
  }
}
