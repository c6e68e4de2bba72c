/**
 * Initialisms as Go spells them in identifiers: golint's common initialisms, and those the Go types
 * of popular CRDs spell so (cert-manager's `ACMEIssuerDNS01ProviderRFC2136`, prometheus-operator's
 * `OAuth2`, Kubernetes' `PodCIDR`). Keys are lowercase; a trailing number stays attached
 * (`dns01` -> `DNS01`), and a plural keeps its lowercase `s` (`ips` -> `IPs`).
 */
const INITIALISMS: ReadonlyMap<string, string> = new Map(
  [
    // golint (golang/lint's commonInitialisms)
    'ACL',
    'API',
    'ASCII',
    'CPU',
    'CSS',
    'DNS',
    'EOF',
    'GUID',
    'HTML',
    'HTTP',
    'HTTPS',
    'ID',
    'IP',
    'JSON',
    'LHS',
    'QPS',
    'RAM',
    'RHS',
    'RPC',
    'SLA',
    'SMTP',
    'SQL',
    'SSH',
    'TCP',
    'TLS',
    'TTL',
    'UDP',
    'UI',
    'UID',
    'UUID',
    'URI',
    'URL',
    'UTF8',
    'VM',
    'XML',
    'XMPP',
    'XSRF',
    'XSS',
    // Kubernetes and the CRDs' own Go types
    'ACME',
    'CA',
    'CIDR',
    'GRPC',
    'JKS',
    'JWKS',
    'JWT',
    'OAuth',
    'OIDC',
    'PKCS',
    'RFC',
    'SNI',
    'TSIG',
  ].map((w) => [w.toLowerCase(), w]),
);

/** The words of a field name: `acmeDNS` -> acme, DNS; `podIPs` -> pod, IPs; `dns01` -> dns01; `tls_config` -> tls, config. */
function words(name: string): string[] {
  const parts = name.match(/[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
  const out: string[] = [];
  for (const p of parts) {
    if (/^[0-9]/.test(p) && out.length > 0) out[out.length - 1] += p;
    else out.push(p);
  }
  return out;
}

/** One word as an identifier part: an initialism as the table spells it, else capitalized. */
function spell(word: string): string {
  const [, letters = '', digits = ''] = /^(.*?)([0-9]*)$/.exec(word) ?? [];
  const lower = letters.toLowerCase();
  const known = INITIALISMS.get(lower);
  if (known) return known + digits;
  const plural = lower.endsWith('s') ? INITIALISMS.get(lower.slice(0, -1)) : undefined;
  if (plural && !/^[A-Z]+$/.test(letters)) return `${plural}s${digits}`;
  return word[0]!.toUpperCase() + word.slice(1);
}

/** `dns01` -> `DNS01`, `oauth2` -> `OAuth2`, `acmeDNS` -> `ACMEDNS`, `podIPs` -> `PodIPs`: a field name as part of a type name. */
export function typeWord(fieldName: string): string {
  return words(fieldName).map(spell).join('');
}
