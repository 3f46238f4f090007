/** The payer page: what the customer sees after scanning the QR, with Pay and Decline. */
import type { Merchant } from '../../domain/merchant.js';
import { formatMinorUnits } from '../../domain/money.js';
import type { Payment, PaymentStatus } from '../../domain/payment.js';
import { isOpen, STATUS_MEANINGS } from '../../domain/payment.js';
import { Document } from './layout.js';
import { BASE_CSS, PAYER_CSS } from './styles.js';

/** What the payer reads for each status: a short label and a headline. */
const PAYER_WORDING: Readonly<Record<PaymentStatus, { label: string; headline: string }>> = {
  P: { label: 'Awaiting payment', headline: 'Check the amount, then pay or decline.' },
  W: { label: 'Awaiting payment', headline: 'Check the amount, then pay or decline.' },
  A: { label: 'Paid', headline: 'Payment complete. Thank you!' },
  F: { label: 'Declined', headline: 'This payment was declined.' },
  E: { label: 'Expired', headline: 'This payment request has expired.' },
  V: { label: 'Cancelled', headline: 'The merchant cancelled this payment request.' },
};

export interface PageNotice {
  readonly code: number;
  readonly description: string;
}

export interface PayerPageProps {
  readonly payment: Payment;
  readonly merchant: Merchant;
  /** The merchant's sandbox time, ms. */
  readonly now: number;
  /** Path of this page, e.g. /sandbox/pay/ptok_...; the forms post below it. */
  readonly pagePath: string;
  readonly imageUrl: string;
  readonly notice?: PageNotice | undefined;
}

const sandboxTime = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function timeLeft(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

function StatusBadge({ status, settled }: { status: PaymentStatus; settled: boolean }) {
  return (
    <span class={`badge st-${status}`} data-status={status} title={STATUS_MEANINGS[status]}>
      {PAYER_WORDING[status].label}
      {status === 'A' && settled ? ', settled' : ''} <span class="code">{status}</span>
    </span>
  );
}

function PayerPage({ payment: p, merchant, now, pagePath, imageUrl, notice }: PayerPageProps) {
  const open = isOpen(p);
  const amount = formatMinorUnits(p.amountMinor);
  const paidOtherwise = p.status === 'A' && (p.paidCurrency !== p.currency || p.paidAmountMinor !== p.amountMinor);
  return (
    <main class="payer">
      {notice ? (
        <div class="notice error" role="alert" data-code={String(notice.code)}>
          <strong>{notice.code === 402 ? 'Not possible: ' : `Error ${notice.code}: `}</strong>
          {notice.description}
        </div>
      ) : null}
      <div class="card">
        <div class="merchant">
          <div class="avatar" aria-hidden="true">
            {(merchant.name.trim()[0] ?? '?').toUpperCase()}
          </div>
          <div>
            <h1 data-testid="merchant-name">{merchant.name}</h1>
            <div class="where" data-testid="merchant-city">
              {merchant.city}, {merchant.countryCode}
            </div>
          </div>
        </div>

        <div class="amount">
          <div class="label">Amount to pay</div>
          <div data-testid="amount">
            <span class="value">{amount}</span> <span class="currency">{p.currency}</span>
          </div>
          {paidOtherwise ? (
            <div class="paid-as">
              paid as {formatMinorUnits(p.paidAmountMinor)} {p.paidCurrency}
            </div>
          ) : null}
        </div>

        <div class="state" role="status">
          <StatusBadge status={p.status} settled={p.settled} />
          <span class="headline">{PAYER_WORDING[p.status].headline}</span>
          {open ? <span class="sub">Expires in {timeLeft(p.expiresAt - now)}</span> : null}
        </div>

        <div class={open ? 'qr' : 'qr done'}>
          <img src={imageUrl} width="200" height="200" alt={`QR code of payment ${p.code}`} data-testid="qr" />
          <span class="payment-code mono">{p.code}</span>
        </div>

        <dl class="details">
          <dt>Reference</dt>
          <dd class="mono" data-testid="merchant-ref-no">
            {p.merchantRefNo}
          </dd>
          <dt>Status</dt>
          <dd data-testid="status">
            {p.status} · {STATUS_MEANINGS[p.status]}
            {p.status === 'A' && p.settled ? ', settled' : ''}
          </dd>
          {p.paidAt !== null ? (
            <>
              <dt>Paid at</dt>
              <dd>{sandboxTime(p.paidAt)}</dd>
            </>
          ) : null}
          {p.payer ? (
            <>
              <dt>Payer</dt>
              <dd>{p.payer.name}</dd>
            </>
          ) : null}
        </dl>

        {open ? (
          <div class="actions">
            <form method="post" action={`${pagePath}/pay`}>
              <button type="submit" class="primary" data-testid="pay">
                Pay {amount} {p.currency}
              </button>
            </form>
            <form method="post" action={`${pagePath}/decline`}>
              <button type="submit" class="secondary" data-testid="decline">
                Decline
              </button>
            </form>
          </div>
        ) : null}
      </div>
      <p class="fineprint">
        A sandbox payer page: Pay and Decline stand in for the customer's wallet app. Times are the merchant's sandbox clock.
      </p>
    </main>
  );
}

export function PayerDocument(props: PayerPageProps & { nonce: string }) {
  const { nonce, ...page } = props;
  return (
    <Document title={`Pay ${formatMinorUnits(page.payment.amountMinor)} ${page.payment.currency} to ${page.merchant.name}`} nonce={nonce} css={BASE_CSS + PAYER_CSS}>
      <PayerPage {...page} />
    </Document>
  );
}

export function NotFoundDocument({ nonce }: { nonce: string }) {
  return (
    <Document title="Payment not found" nonce={nonce} css={BASE_CSS + PAYER_CSS}>
      <main class="payer">
        <div class="card not-found">
          <h1>Payment not found</h1>
          <p>This payment link is unknown or mistyped. Scan the QR code again, or ask the merchant for a new one.</p>
        </div>
      </main>
    </Document>
  );
}
