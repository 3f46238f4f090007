/** The status read's answers, kept per payment version: integrators poll one payment until it changes. */
import type { Payment } from '../../../domain/payment.js';

const STATUS_TEXTS_KEPT = 10_000;

/** Keyed by payment id and version: every store's versions are final (a change is stored before anyone reads it). */
export class StatusTexts {
  private readonly kept = new Map<string, { readonly payment: Payment; readonly text: string }>();

  /** The kept answer of this payment version, or `make`'s, then kept (the oldest of too many goes). */
  text(p: Payment, make: (p: Payment) => string): string {
    const kept = this.kept.get(p.id);
    if (kept && kept.payment.version === p.version) return kept.text;
    const text = make(p);
    this.kept.delete(p.id);
    this.kept.set(p.id, { payment: p, text });
    if (this.kept.size > STATUS_TEXTS_KEPT) this.kept.delete(this.kept.keys().next().value!);
    return text;
  }
}
