import { type MediaType, parseMediaType, splitOutsideQuotes } from './media-types.js';

/**
 * Parameters that select a different representation: a clause and an offer match only when they
 * agree on each (`as=Table;g=meta.svc.io;v=v1` is not plain JSON). `stream` must match when the
 * clause names it; a clause without it also accepts a streaming offer of the same type.
 */
const CONVERSION_PARAMS = ['as', 'g', 'v'] as const;

interface AcceptClause {
  media: MediaType;
  q: number;
  /** Position in the header: the fallback order among equal q-values. */
  index: number;
}

/**
 * Content negotiation: the offer (one of `offers`, returned exactly as given) that the Accept
 * header prefers, or undefined when none is acceptable (the server answers 406 naming `offers`).
 *
 * - A missing or empty header accepts the first offer.
 * - Each offer takes the q-value of the most specific clause that matches it (`type/subtype` over
 *   `type/*` over `*\/*`); q=0 excludes it, even when a wildcard would accept it.
 * - The highest q wins; among equal q-values the clause listed first wins (fallback in order:
 *   `Table, then JSON`; `Protobuf, then JSON`), then the earlier offer.
 * - Parameters `as`, `g`, `v` must agree; `stream=watch` must be offered when asked for; others
 *   (`pretty`, `charset`) are ignored. Unparsable clauses are skipped.
 */
export function negotiate(acceptHeader: string | undefined | null, offers: readonly string[]): string | undefined {
  if (acceptHeader === undefined || acceptHeader === null || acceptHeader.trim() === '') return offers[0];
  const clauses = parseAccept(acceptHeader);
  let best: { offer: string; q: number; index: number; order: number } | undefined;
  offers.forEach((offer, order) => {
    const media = parseMediaType(offer);
    if (!media) return;
    let match: { clause: AcceptClause; specificity: number } | undefined;
    for (const clause of clauses) {
      const specificity = matches(clause.media, media);
      if (specificity < 0) continue;
      if (!match || specificity > match.specificity || (specificity === match.specificity && clause.index < match.clause.index)) {
        match = { clause, specificity };
      }
    }
    if (!match || match.clause.q <= 0) return;
    const candidate = { offer, q: match.clause.q, index: match.clause.index, order };
    if (!best || candidate.q > best.q || (candidate.q === best.q && candidate.index < best.index)) best = candidate;
  });
  return best?.offer;
}

/** The clauses of an Accept header, in header order, with their q-values (invalid q counts as 0). */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  splitOutsideQuotes(header, ',').forEach((text, index) => {
    if (text.trim() === '') return;
    const media = parseMediaType(text);
    if (!media) return;
    let q = 1;
    if ('q' in media.params) {
      const value = media.params.q!;
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
      delete media.params.q;
    }
    clauses.push({ media, q, index });
  });
  return clauses;
}

/** How specifically `clause` matches `offer`: -1 not at all, 0 `*\/*`, 1 `type/*`, 2 exact. */
function matches(clause: MediaType, offer: MediaType): number {
  let specificity: number;
  if (clause.type === '*' && clause.subtype === '*') specificity = 0;
  else if (clause.type === offer.type && clause.subtype === '*') specificity = 1;
  else if (clause.type === offer.type && clause.subtype === offer.subtype) specificity = 2;
  else return -1;
  for (const p of CONVERSION_PARAMS) if ((clause.params[p] ?? '') !== (offer.params[p] ?? '')) return -1;
  if (clause.params.stream !== undefined && clause.params.stream !== offer.params.stream) return -1;
  return specificity;
}
