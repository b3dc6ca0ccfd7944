/**
 * `domain:` specifiers, as Claude Code writes them for WebFetch: `WebFetch(domain:example.com)`
 * matches that host exactly; `WebFetch(domain:*.example.com)` matches its subdomains, not the
 * name itself (docs/decisions/tools.md #131). Letter case and a trailing dot do not matter.
 */

const LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?'
const DOMAIN = new RegExp(`^domain:(\\*\\.)?(${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])\\.?$`, 'i')

/** Why a specifier is not a `domain:` one this tool can match, or undefined. */
export function domainProblem(tool: string, specifier: string): string | undefined {
  if (DOMAIN.test(specifier)) return undefined
  const hint = `${tool} rules take domain:<host name>, e.g. ${tool}(domain:example.com) or ${tool}(domain:*.example.com) for its subdomains`
  if (!specifier.startsWith('domain:')) return `has the specifier ${JSON.stringify(specifier)}, but ${hint}`
  return `has a domain that is not a host name (letters, digits, - and . only; an IDN in its xn-- form): ${hint}`
}

/** Whether a `domain:` specifier matches a host name (as a URL's `hostname` gives it). */
export function matchesDomain(specifier: string, host: string): boolean {
  const pattern = canonical(specifier.slice('domain:'.length))
  const name = canonical(host)
  if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
  return name === pattern
}

const canonical = (name: string): string => name.toLowerCase().replace(/\.$/, '')
