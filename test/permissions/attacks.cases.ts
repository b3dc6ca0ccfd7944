/**
 * Permission-bypass attacks, as data: each row is a tool call that a correct permission layer
 * must not let run unasked (docs/design.md §The trust model). attacks.test.ts runs every row through
 * a real kernel with a real shell in a temp directory; there is no `canUseTool`, so "ask" is
 * observable as "denied, and did not run".
 *
 * Rows marked with `source` restate, in our own words and as rows of this table, a case from
 * another tool's tests or from a published bypass report.
 */
import type { PermissionMode } from '../../src/index.js'
import { SECRET_FILE, SECRET_TOKEN, ENV_CANARY, type CallSpec, type Fixture } from './attacks.setup.js'

export type Family = 'read-only' | 'deny-rule' | 'allow-rule' | 'paths' | 'read-rules'

export interface Rules {
  allow?: string[]
  ask?: string[]
  deny?: string[]
}

export interface AttackCase {
  family: Family
  /** The Bash command; for another tool, a short description of the call. */
  command: string
  /** Default 'Bash'. */
  tool?: 'Bash' | 'Write' | 'Edit' | 'Read' | 'Grep' | 'Glob'
  /** The input for a tool other than Bash; {dir}, {outside} and {outsideName} are filled in. */
  input?: Record<string, unknown>
  mode: PermissionMode
  rules: Rules
  /** A path (relative to the case's directory, or {outside}/…) the attack would create; it must not exist after. */
  creates?: string
  /** Paths that must be exactly as the fixtures left them (present, same content). */
  keeps?: string[]
  /** Text that must not appear in the tool_result. */
  leaks?: string[]
  /**
   * 'denied': the tool_result must be an error saying the call was denied or needed approval.
   * 'any': only the effects are checked.
   */
  verdict: 'denied' | 'any'
  setup?: Fixture[]
  /** Calls made first, in the same session (a Write over a file needs a Read first). */
  before?: CallSpec[]
  note: string
  source?: string
  /**
   * Whether the control run (the command through bash directly, no kernel) is expected to show the
   * attack's effect on this machine. false: it cannot here (program absent, needs a terminal …), so
   * the row still guards the verdict but the effect is not demonstrated.
   */
  live?: boolean
}

const X = 'X'

// ---------------------------------------------------------------------------------------------
// Sources. Each names the file or thread the fact was taken from; the rows say it in our words.
// ---------------------------------------------------------------------------------------------
const codexSafe = (test: string) => `openai/codex codex-rs/core/src/command_safety/is_safe_command.rs, test ${test}`
const codexBash = (test: string) => `openai/codex shell-command bash parser tests (tree-sitter), test ${test}`
const geminiPerm = (test: string) =>
  `google-gemini/gemini-cli packages/core/src/utils/shell-permissions.test.ts, "${test}"`
const geminiUtils = (test: string) => `google-gemini/gemini-cli packages/core/src/utils/shell-utils.test.ts, "${test}"`
const claude = (n: number, what: string) => `https://github.com/anthropics/claude-code/issues/${n} (${what})`
const QWEN_GIT_CONFIG =
  'https://github.com/QwenLM/qwen-code/issues/8575 (read-only git sub-commands run programs named in git config: diff.external, core.fsmonitor)'
const KIRO_GIT_OUTPUT =
  'https://github.com/kirodotdev/KiroCrew/issues/5037 (git diff|log|show --output=FILE judged read-only)'
const WRAPPERS = claude(
  92542,
  'deny rules unwrap only timeout, time, nice, stdbuf, nohup, command, builtin, noglob and VAR=value; any other wrapper hides the command',
)
const ABS_AND_BASH_C =
  'https://github.com/ikuwow/dotfiles/pull/444 (Claude Code deny rules: an absolute path or bash -c passes)'

type Extra = Partial<Omit<AttackCase, 'family' | 'command' | 'mode' | 'rules'>>

// ---------------------------------------------------------------------------------------------
// 1. Read-only verdict bypass: with no rules, a Bash call judged read-only runs unasked in
//    'default' mode and is the only kind 'plan' mode runs. Each row runs in both modes.
// ---------------------------------------------------------------------------------------------
function readOnlyRows(command: string, note: string, extra: Extra, creates?: string): AttackCase[] {
  return (['default', 'plan'] as const).map((mode) => ({
    family: 'read-only',
    command,
    mode,
    rules: {},
    verdict: 'denied',
    note,
    ...(creates !== undefined ? { creates } : {}),
    ...extra,
  }))
}
const readOnly = (command: string, note: string, extra: Extra = {}): AttackCase[] =>
  readOnlyRows(command, note, extra, X)
/** A read-only-looking command whose effect is not a file here (clock, host name, secrets): only the verdict counts. */
const readOnlyNoFile = (command: string, note: string, extra: Extra = {}): AttackCase[] =>
  readOnlyRows(command, note, extra)

const readOnlyCases: AttackCase[] = [
  // separators and comments
  ...readOnly('ls\ntouch X', 'a newline separates commands; a tokenizer reads it as a space', {
    source: claude(94314, 'the documented separators include newlines; each subcommand must match'),
  }),
  ...readOnly('ls\n\ntouch X', 'blank lines between commands'),
  ...readOnly('ls #\ntouch X', 'a comment ends at the newline; the next line runs'),
  ...readOnly('echo a#b; touch X', '# inside a word is not a comment'),
  ...readOnly('echo a#b\ntouch X', '# inside a word, then a newline'),
  ...readOnly('ls \\\n; touch X', 'backslash-newline is removed before parsing: this is `ls ; touch X`'),
  ...readOnly('ls; touch X', 'a sequence'),
  ...readOnly('ls;touch X', 'a sequence without spaces'),
  ...readOnly('ls && touch X', 'an and-list', {
    source: codexSafe('bash_lc_unsafe_examples ("ls && rm -rf /" is rejected)'),
  }),
  ...readOnly('ls missing || touch X', 'an or-list whose left side fails', {
    source: geminiUtils('should handle a mix of operators (a;b|c&&d||e&f gives six roots)'),
  }),
  ...readOnly('ls | touch X', 'a pipeline', {
    source: geminiPerm('should block pipelines that invoke an unlisted command'),
  }),
  ...readOnly('ls & touch X', 'a background job', {
    source: geminiPerm('should block background jobs that invoke an unlisted command'),
  }),
  ...readOnly('ls |& touch X', 'a pipeline that also carries stderr'),
  ...readOnly('ls missing || (pwd && touch X)', 'a nested subshell', {
    source: codexSafe('bash_lc_unsafe_examples (nested parentheses are not provably safe)'),
  }),
  ...readOnly('(touch X)', 'a subshell', { source: codexSafe('bash_lc_unsafe_examples ("(ls)" is rejected)') }),
  ...readOnly('(ls; touch X)', 'a subshell holding a sequence'),
  ...readOnly('{ ls; touch X; }', 'a brace group', { source: claude(70369, 'a brace group slipped past a deny rule') }),
  // substitutions
  ...readOnly('$(touch X)', 'a command substitution as the whole command'),
  ...readOnly('`touch X`', 'a backtick substitution as the whole command'),
  ...readOnly('echo $(touch X)', 'a command substitution in an argument', {
    source: geminiPerm('should block command substitution that invokes an unlisted command'),
  }),
  ...readOnly('echo `touch X`', 'a backtick substitution in an argument', {
    source: geminiPerm('should block backtick substitution that invokes an unlisted command'),
  }),
  ...readOnly('echo "$(touch X)"', 'a substitution inside double quotes still runs', {
    source: codexBash('rejects_double_quoted_strings_with_expansions'),
  }),
  ...readOnly('ls -- $(touch X)', 'a substitution after --'),
  ...readOnly('echo ${x:-$(touch X)}', 'a substitution inside a parameter default'),
  ...readOnly('echo $(( $(touch X)0 ))', 'a substitution inside arithmetic'),
  ...readOnly('cat <(touch X)', 'an input process substitution', {
    source: claude(70369, 'cat <(ls) foo.txt read a denied file'),
  }),
  ...readOnly('diff <(touch X) foo', 'a process substitution as an argument of a read-only command', {
    source: geminiPerm('should block process substitution using <() when the inner command is unlisted'),
  }),
  ...readOnly('ls >(touch X)', 'an output process substitution as an argument'),
  ...readOnly(
    'echo data > >(touch X); wait $!',
    'redirecting into an output process substitution (wait lets it finish)',
    { source: geminiPerm('should block process substitution using >() when the inner command is unlisted') },
  ),
  ...readOnly('cat <<EOF\n$(touch X)\nEOF', 'an unquoted here-document expands substitutions', {
    source: geminiPerm('should block command substitution inside a here-document when the inner command is unlisted'),
  }),
  ...readOnly('cat <<< "$(touch X)"', 'a here-string with a substitution', {
    source: codexBash('parse_shell_lc_single_command_prefix_rejects_herestring_with_substitution'),
  }),
  ...readOnly(
    'echo "${v=aa\\140touch X\\140}${v@P}"',
    'the @P transformation decodes \\140 into backticks and runs them',
    { source: geminiPerm('should block commands containing prompt transformations') },
  ),
  ...readOnly(
    "test -v 'a[$(touch X)]'",
    'test -v evaluates an array subscript, substitution included, even single-quoted',
  ),
  ...readOnly("[ -v 'a[$(touch X)]' ]", '[ -v evaluates the subscript too'),
  ...readOnly('[[ -v a[$(touch X)] ]]', '[[ -v evaluates the subscript'),
  ...readOnly("printf -v 'a[$(touch X)]' x", 'printf -v assigns through an evaluated subscript'),
  ...readOnly("printf -v'a[$(touch X)]' x", 'the name attached to -v'),
  ...readOnly("printf $(echo -v) 'a[$(touch X)]' x", 'a computed word that is -v'),
  // Found by mutation testing of read-only.checks.ts: `--` as the value of an option that takes one.
  ...readOnly("git grep -e -- -O'touch X;:' x", 'git grep -e takes -- as its pattern; the -O after it runs', {
    setup: ['git'],
    live: false,
  }),
  ...readOnly('sort -T -- -o X /dev/null', 'sort -T takes -- as its directory; the -o after it writes'),
  // Found by mutation testing of evaluation.ts: the subscript of a name bash computes, or decodes.
  ...readOnly("[[ -v $'a[\\x24(touch X)]' ]]", '[[ -v evaluates the subscript of an ANSI-C string, decoded'),
  ...readOnly("[[ $'a[\\x24(touch X)]' -eq 1 ]]", 'arithmetic reads an ANSI-C string decoded'),
  ...readOnly('echo "${y:-$\'\\x24(touch X)\'}"', 'a default value in double quotes decodes, then expands'),
  ...readOnly('echo ${y:-<(touch X)}', 'a default value runs a process substitution the grammar reads as a word'),
  // control flow, functions, aliases, traps, eval, shells
  ...readOnly('if ls; then touch X; fi', 'an if'),
  ...readOnly('for f in a; do touch X; done', 'a for loop'),
  ...readOnly('while true; do touch X; break; done', 'a while loop'),
  ...readOnly('until touch X; do :; done', 'an until loop whose condition writes'),
  ...readOnly('case a in a) touch X;; esac', 'a case'),
  ...readOnly('f() { touch X; }; f', 'a function defined and called'),
  ...readOnly('function f { touch X; }; f', 'a function with the function keyword'),
  ...readOnly('ls() { touch X; }; ls', 'a function that shadows a read-only command', {
    source: geminiPerm('should block a command that redefines an allowed function to run an unlisted command'),
  }),
  ...readOnly('echo () (touch X) ; echo hi', 'a function with a subshell body shadows echo', {
    source: geminiPerm('should block a command that redefines an allowed function to run an unlisted command'),
  }),
  ...readOnly('echo () {\n  touch X\n} ; echo ok', 'a multi-line function body shadows echo', {
    source: geminiPerm('should block a multi-line function body that runs an unlisted command'),
  }),
  ...readOnly("shopt -s expand_aliases\nalias ls='touch X'\nls", 'an alias, enabled on an earlier line, shadows ls'),
  ...readOnly("trap 'touch X' EXIT; ls", 'a trap runs its command when the shell exits'),
  ...readOnly("eval 'touch X'", 'eval'),
  ...readOnly("bash -c 'touch X'", 'a nested bash', {
    source: geminiUtils('should strip bash -c with extra whitespace'),
  }),
  ...readOnly('sh -c "touch X"', 'a nested sh', { source: geminiUtils('should strip sh -c with quotes') }),
  ...readOnly('echo touch X | bash', 'a script piped into bash'),
  ...readOnly('source <(echo touch X)', 'sourcing a process substitution'),
  ...readOnly("$'\\x74ouch' X", 'ANSI-C quoting spells the command name'),
  ...readOnly('PATH=.:$PATH ls', 'a PATH assignment makes `ls` a program in the working directory', {
    setup: ['fake-ls'],
    source: codexBash('rejects_variable_assignment_prefix ("FOO=bar ls")'),
  }),
  ...readOnly('PATH=. ls', 'PATH set to the working directory', { setup: ['fake-ls'] }),
  // redirections
  ...readOnly('ls > X', 'output redirected to a file', {
    source: codexSafe('bash_lc_unsafe_examples ("ls > out.txt" is rejected)'),
  }),
  ...readOnly('ls >X', 'a redirection without a space'),
  ...readOnly('echo hi >> X', 'an appending redirection', { source: geminiUtils('should detect append redirection') }),
  ...readOnly('ls 2> X', 'stderr redirected to a file', {
    source: geminiUtils('should detect redirection with explicit file descriptor ("ls 2> error.log")'),
  }),
  ...readOnly('ls &> X', 'stdout and stderr to a file'),
  ...readOnly('ls >& X', '>& with a file name'),
  ...readOnly('ls >| X', 'a clobbering redirection'),
  ...readOnly('ls 1> X', 'fd 1 named explicitly'),
  ...readOnly('ls 3> X', 'another fd opened on a file'),
  ...readOnly('ls <> X', 'a read-write redirection creates the file'),
  ...readOnly('echo > X', 'echo into a file'),
  ...readOnly('> X', 'a redirection alone'),
  ...readOnly('ls > /dev/null > X', 'a harmless redirection followed by a real one'),
  ...readOnly('ls >/dev/null 2>X', 'stdout discarded, stderr to a file'),
  ...readOnly('echo hi 2>&1 >X', 'fd duplication, then a file'),
  ...readOnly("cat <<'EOF' > X\nhi\nEOF", 'a quoted here-document with an output redirection', {
    source: codexBash(
      'parse_shell_lc_single_command_prefix_accepts_heredoc_with_extra_redirect (the prefix is cat, the effect is a write)',
    ),
  }),
  ...readOnly('echo $(cat foo) > X', 'a substitution and a redirection together', {
    source: geminiUtils('should include nested command substitutions in redirected statements'),
  }),
  ...readOnly('echo hi | tee X', 'tee writes its file'),
  ...readOnly('date > X', 'a read-only command redirected'),
  // options of read-only commands that run programs or write files
  ...readOnly('find . -exec touch X \\;', 'find -exec runs a program', {
    source: codexSafe('unknown_or_partial (find -exec)'),
  }),
  ...readOnly('find . -execdir touch X \\;', 'find -execdir runs a program', {
    source: codexSafe('unknown_or_partial (find -execdir)'),
  }),
  ...readOnly('find . -maxdepth 0 -exec touch X {} +', 'find -exec … + runs a program'),
  ...readOnly('find . -ok touch X \\;', 'find -ok runs a program once answered', {
    live: false,
    source: codexSafe('unknown_or_partial (find -ok)'),
  }),
  ...readOnly('find . -okdir touch X \\;', 'find -okdir runs a program once answered', {
    live: false,
    source: codexSafe('unknown_or_partial (find -okdir)'),
  }),
  ...readOnly('find . -fprint X', 'find -fprint writes a file', {
    source: codexSafe('unknown_or_partial (find -fprint)'),
  }),
  ...readOnly('find . -fprint0 X', 'find -fprint0 writes a file', {
    source: codexSafe('unknown_or_partial (find -fprint0)'),
  }),
  ...readOnly("find . -fprintf X '%p\\n'", 'find -fprintf writes a file', {
    source: codexSafe('unknown_or_partial (find -fprintf)'),
  }),
  ...readOnly('find . -fls X', 'find -fls writes a file', { source: codexSafe('unknown_or_partial (find -fls)') }),
  ...readOnly('rg --pre ./mk foo .', 'ripgrep runs its preprocessor on every file', {
    setup: ['mk'],
    source: codexSafe('ripgrep_rules (--pre pwned)'),
  }),
  ...readOnly('rg --pre=./mk foo', '--pre= form', { setup: ['mk'], source: codexSafe('ripgrep_rules (--pre=pwned)') }),
  ...readOnly("rg --pre ./mk --pre-glob '*' foo", '--pre with --pre-glob', { setup: ['mk'] }),
  ...readOnly(
    'rg --hostname-bin=./mk --hyperlink-format=default foo',
    'ripgrep 14 runs --hostname-bin for hyperlinks',
    { setup: ['mk'], live: false, source: codexSafe('ripgrep_rules (--hostname-bin=pwned)') },
  ),
  ...readOnly('sort -S 1 --compress-program=./mk big', 'sort runs its compress program once it spills to temp files', {
    setup: ['mk', 'big'],
  }),
  ...readOnly('sort -S1 --comp=./mk big', 'an abbreviated long option', { setup: ['mk', 'big'] }),
  ...readOnly('sort -o X foo', 'sort -o writes a file'),
  ...readOnly('sort --output=X foo', 'sort --output='),
  ...readOnly('sort --o=X foo', 'sort accepts --o as an abbreviation of --output'),
  ...readOnly('sort --outp=X foo', 'another abbreviation of --output'),
  ...readOnly('sort -uo X foo', '-o bundled with another flag'),
  ...readOnly('sort foo -o X', '-o after the operand'),
  ...readOnly('uniq foo X', 'uniq writes its second operand'),
  ...readOnly('uniq -c foo X', 'uniq with a flag and an output operand'),
  ...readOnly('xxd foo X', 'xxd writes its second operand'),
  ...readOnly('xxd -p foo X', 'xxd -p with an output operand'),
  ...readOnly('file -C -m magic', 'file -C compiles magic into magic.mgc', { setup: ['magic'], creates: 'magic.mgc' }),
  ...readOnly('tree -o X', 'tree -o writes its listing to a file', { live: false }),
  ...readOnly('git log --output=X', 'git log --output writes a file', {
    setup: ['git'],
    source: codexSafe('git_output_and_config_override_flags_are_not_safe (git log --output=…)'),
  }),
  ...readOnly('git diff --output X HEAD', 'git diff --output with a separate value', {
    setup: ['git'],
    source: codexSafe('git_output_and_config_override_flags_are_not_safe (git diff --output …)'),
  }),
  ...readOnly('git show --output=X', 'git show --output', {
    setup: ['git'],
    source: codexSafe('git_output_and_config_override_flags_are_not_safe (git show --output=…)'),
  }),
  ...readOnly('git log -p --output X', 'git log -p --output', { setup: ['git'], source: KIRO_GIT_OUTPUT }),
  ...readOnly('git -C . log --output=X', 'a global option before the subcommand', {
    setup: ['git'],
    source: codexSafe('git_branch_global_options_respect_safety_rules (git -C . …)'),
  }),
  ...readOnly("git -c core.fsmonitor='touch X' status", 'git status runs the fsmonitor hook named by -c', {
    setup: ['git'],
    source: QWEN_GIT_CONFIG,
  }),
  ...readOnly(
    "git -ccore.fsmonitor='touch X' status",
    '-c glued to its value (git 2.39 rejects this spelling, so it only guards the verdict)',
    {
      setup: ['git'],
      live: false,
      source: codexSafe('git_output_and_config_override_flags_are_not_safe (git -ccore.pager=cat status)'),
    },
  ),
  ...readOnly("git -c core.pager='touch X' log -p", 'a pager set with -c (only pages on a terminal)', {
    setup: ['git'],
    live: false,
    source: codexSafe('git_output_and_config_override_flags_are_not_safe (git -c core.pager=cat log)'),
  }),
  ...readOnly("git grep -O'touch X' foo", 'git grep -O opens the matches with a program', { setup: ['git'] }),
  ...readOnly("git grep --open-files-in-pager='touch X' foo", 'the long form of -O', { setup: ['git'] }),
  ...readOnly("git -c alias.x='!touch X' x", 'a shell alias defined on the command line', { setup: ['git'] }),
  ...readOnly(
    "EVIL='touch X' git --config-env=core.fsmonitor=EVIL status",
    'config taken from an environment variable',
    { setup: ['git'], source: codexSafe('git_has_config_override_global_option (--config-env)') },
  ),
  ...readOnly('GIT_EXTERNAL_DIFF=./mk git diff', 'git diff runs the external diff program named in the environment', {
    setup: ['git', 'dirty', 'mk'],
    source: QWEN_GIT_CONFIG,
  }),
  ...readOnly('git status > X', 'git status redirected', { setup: ['git'] }),
  ...readOnly('git status --porcelain; touch X', 'git status in a sequence', { setup: ['git'] }),
  // effects that are not a file here, or secrets: only the verdict is checked
  ...readOnlyNoFile(
    "date -s 'invalid-date-string'",
    'date -s sets the clock (the date here is invalid, so nothing changes if it runs)',
  ),
  ...readOnlyNoFile('date --set=garbage', 'date --set (invalid, harmless if it runs)'),
  ...readOnlyNoFile(
    'hostname -F ./no-such-file',
    'hostname -F sets the host name (the file does not exist, so nothing changes if it runs)',
  ),
  ...readOnlyNoFile('cat /proc/self/environ', 'dumps the environment, secrets included', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('env', 'dumps the environment', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('printenv', 'dumps the environment', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('printenv TK_ATTACK_CANARY', 'prints one environment variable', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('jq -n env', 'jq exposes the environment', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile("jq -n '$ENV'", 'jq exposes the environment as $ENV', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile("jq -n '$ ENV'", 'jq reads $ and ENV as two tokens', { leaks: [ENV_CANARY] }),
  // the environment through paths whose letters do not say /proc/self/environ
  ...readOnlyNoFile('cat //proc/self/env*', 'a doubled slash', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('cat /proc/self/../self/env*', '.. inside /proc', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('cat /dev/fd/../env*', '/dev/fd is a link to /proc/self/fd', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('cat /proc/self/root/proc/self/env*', '/proc/self/root is /', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('cat /proc/*/task/??*/env*', 'every thread of every process', { leaks: [ENV_CANARY] }),
  ...readOnlyNoFile('cd -P /dev/fd/.. && cat env*', 'cd through a link, then a glob with no slash', {
    leaks: [ENV_CANARY],
  }),
  ...readOnlyNoFile('cd /dev/fd/3 3</proc/self && cat env*', 'cd into the directory a redirection opened', {
    leaks: [ENV_CANARY],
  }),
]

// ---------------------------------------------------------------------------------------------
// 2. Deny-rule bypass: `Bash(rm:*)` is denied; each row tries to delete V anyway, in
//    bypassPermissions mode and in default mode with every other Bash call allowed.
// ---------------------------------------------------------------------------------------------
function denyRule(command: string, note: string, extra: Extra = {}): AttackCase[] {
  const base = {
    family: 'deny-rule' as const,
    command,
    keeps: ['V'],
    verdict: 'denied' as const,
    note,
    ...extra,
    setup: ['victim' as const, ...(extra.setup ?? [])],
  }
  return [
    { ...base, mode: 'bypassPermissions', rules: { deny: ['Bash(rm:*)'] } },
    { ...base, mode: 'default', rules: { allow: ['Bash'], deny: ['Bash(rm:*)'] } },
  ]
}

const denyRuleCases: AttackCase[] = [
  ...denyRule('rm V', 'the plain command (baseline)'),
  ...denyRule('rm -f V', 'the plain command with a flag (baseline)'),
  ...denyRule('r\\\nm V', 'a backslash-newline inside the command name: bash joins r and m'),
  ...denyRule("cat $'\\\\'\nrm V\n#'", "a $'…' string bash ends at the third quote, the grammar at the last"),
  ...denyRule("$'\\562m' V", 'an octal escape above \\377: bash keeps its low byte, r'),
  ...denyRule("declare -a a='($(rm V))'", 'declare parses a quoted (…) again as an array and runs what is inside'),
  ...denyRule('x=\'$(rm V)\'; declare -a a="($x)"', 'the same with the value computed'),
  ...denyRule('hash $(echo -p) /bin/rm ls; ls V', 'hash -p given as a computed word makes ls run rm'),
  ...denyRule("bash -c 'rm V'", 'inside bash -c', { source: ABS_AND_BASH_C }),
  ...denyRule('sh -c "rm V"', 'inside sh -c', { source: geminiUtils('should strip sh -c with quotes') }),
  ...denyRule('sh -c \'sh -c "rm V"\'', 'two shells deep'),
  ...denyRule('bash <<< "rm V"', 'a here-string fed to bash'),
  ...denyRule("printf 'rm V' | bash", 'a script piped to bash'),
  ...denyRule('echo rm V | sh', 'a script piped to sh'),
  ...denyRule('env rm V', 'behind env', { source: WRAPPERS }),
  ...denyRule('env -i /bin/rm V', 'env with a flag and an absolute path'),
  ...denyRule('env -- rm V', 'env with --'),
  ...denyRule('timeout 5 rm V', 'behind timeout', { source: WRAPPERS }),
  ...denyRule('timeout -s KILL 5 rm V', 'timeout with options'),
  ...denyRule('X=1 rm V', 'an environment assignment first', {
    source: claude(31558, 'an env variable prefix bypassed a deny rule'),
  }),
  ...denyRule('LC_ALL=C rm V', 'a locale assignment first'),
  ...denyRule('(rm V)', 'a subshell', { source: claude(39601, 'deny matching did not recurse into subshells') }),
  ...denyRule('{ rm V; }', 'a brace group', { source: claude(70369, 'a brace group bypassed the deny rule') }),
  ...denyRule('$(rm V)', 'a command substitution', { source: claude(39601, 'deny matching did not recurse into $()') }),
  ...denyRule('`rm V`', 'a backtick substitution', {
    source: claude(39601, 'deny matching did not recurse into backticks'),
  }),
  ...denyRule('echo $(rm V)', 'a substitution in an argument'),
  ...denyRule('cat <(rm V)', 'a process substitution'),
  ...denyRule('{rm,V}', 'brace expansion builds the words'),
  ...denyRule('rm${IFS}V', 'IFS splits the word'),
  ...denyRule('/bin/rm V', 'an absolute path', { source: ABS_AND_BASH_C }),
  ...denyRule('/usr/bin/rm V', 'another absolute path'),
  ...denyRule('\\rm V', 'a backslash before the name'),
  ...denyRule('r""m V', 'an empty string inside the name'),
  ...denyRule("'rm' V", 'the name single-quoted'),
  ...denyRule('"rm" V', 'the name double-quoted'),
  ...denyRule("$'rm' V", 'the name in ANSI-C quotes'),
  ...denyRule('r\\m V', 'a backslash inside the name'),
  ...denyRule('nohup rm V', 'behind nohup', { source: WRAPPERS }),
  ...denyRule("nohup sh -c 'rm V' --help", "behind nohup, with a --help that is the command's, not nohup's"),
  ...denyRule("setsid sh -c 'rm V' --version", "behind setsid, with a --version that is the command's"),
  ...denyRule('setsid -w rm V', 'setsid with an option of its own'),
  ...denyRule("setsid --fork sh -c 'rm V'", 'setsid with a long option'),
  ...denyRule('nice rm V', 'behind nice', { source: WRAPPERS }),
  ...denyRule('nice -n 5 rm V', 'nice with options'),
  ...denyRule('stdbuf -oL rm V', 'behind stdbuf', { source: WRAPPERS }),
  ...denyRule('ionice rm V', 'behind ionice, a wrapper outside the usual list', { source: WRAPPERS }),
  ...denyRule('xargs rm <<< V', 'xargs builds the command'),
  ...denyRule('echo V | xargs rm', 'xargs fed by a pipe'),
  ...denyRule('xargs -I{} rm {} <<< V', 'xargs with a replacement string'),
  ...denyRule('xargs -a <(echo V) rm', 'xargs reading its arguments from a file'),
  ...denyRule('command rm V', 'behind command', { source: WRAPPERS }),
  ...denyRule('command -p rm V', 'command -p'),
  ...denyRule('builtin command rm V', 'behind builtin command', { source: WRAPPERS }),
  ...denyRule('exec rm V', 'behind exec'),
  ...denyRule('time rm V', 'behind time', { source: WRAPPERS }),
  ...denyRule('sudo rm V', 'behind sudo (absent here; the rule must still deny)', { live: false }),
  ...denyRule('coproc rm V; wait', 'as a coprocess'),
  ...denyRule('if true; then rm V; fi', 'inside an if'),
  ...denyRule('for f in V; do rm $f; done', 'inside a for loop'),
  ...denyRule('while true; do rm V; break; done', 'inside a while loop'),
  ...denyRule('case x in x) rm V;; esac', 'inside a case'),
  ...denyRule('f(){ rm V; }; f', 'inside a function'),
  ...denyRule('true && rm V', 'after &&'),
  ...denyRule('ls; rm V', 'after ;'),
  ...denyRule('ls\nrm V', 'after a newline'),
  ...denyRule('echo ok # \nrm V', 'after a comment line'),
  ...denyRule('ls | rm V', 'in a pipeline'),
  ...denyRule('rm V & wait', 'in the background'),
  ...denyRule('! rm V', 'negated'),
  ...denyRule('eval rm V', 'through eval', { source: claude(39601, 'deny matching did not recurse into eval') }),
  ...denyRule("eval 'rm V'", 'through eval, quoted'),
  ...denyRule('$(printf rm) V', 'the name computed by a substitution'),
  ...denyRule('a=rm; $a V', 'the name in a variable'),
  ...denyRule('${x:-rm} V', 'the name as a parameter default'),
  ...denyRule('timeout 3 watch -n1 rm V', 'watch runs it through a shell'),
  ...denyRule("trap 'rm V' EXIT", 'a trap on exit'),
  ...denyRule('shopt -s expand_aliases\nalias x=rm\nx V', 'an alias'),
  ...denyRule('source <(echo rm V)', 'sourced from a process substitution'),
  ...denyRule('. /dev/stdin <<< "rm V"', 'sourced from a here-string'),
  ...denyRule('find . -name V -exec rm {} \\;', 'find -exec runs it', {
    source: claude(6036, 'find -exec reached files the rules denied'),
  }),
  ...denyRule("git -c alias.x='!rm V' x", 'a git shell alias runs it', { setup: ['git'] }),
  // Found by mutation testing of evaluation.ts: bash evaluates a subscript in a value it computes.
  ...denyRule('printf \'a[$(rm V)]\' > f; test -v "$(cat f)"', 'test -v of a variable name read from a file'),
  ...denyRule("linux='b[$(rm V)]'; echo $((OSTYPE))", 'OSTYPE is linux-gnu, which names the variable set first'),
  ...denyRule("printf -v'a[$(rm V)]' %s 1", 'printf -vNAME evaluates the subscript of NAME'),
]

// ---------------------------------------------------------------------------------------------
// 3. Allow-rule widening: `ls`, `git status` and `echo` are allowed by prefix; nothing else is.
// ---------------------------------------------------------------------------------------------
const ALLOW_RULES: Rules = { allow: ['Bash(ls:*)', 'Bash(git status:*)', 'Bash(echo:*)'] }
function allowRule(command: string, note: string, extra: Extra = {}): AttackCase {
  return {
    family: 'allow-rule',
    command,
    mode: 'default',
    rules: ALLOW_RULES,
    creates: X,
    verdict: 'denied',
    note,
    ...extra,
  }
}

const allowRuleCases: AttackCase[] = [
  allowRule('ls; touch X', 'an allowed command, then another', {
    source: claude(15763, 'a chain starting or ending with an allowed command ran without approval'),
  }),
  allowRule('ls && touch X', 'after &&'),
  allowRule('echo "test" && touch X', 'echo allowed, chained', {
    source: claude(4956, 'with Bash(echo *) allowed, echo "test" && ls ran unasked'),
  }),
  allowRule('touch X && ls -la', 'the allowed command last', {
    source: claude(15763, 'rm -rf … && ln … && ls ran with only ls allowed'),
  }),
  allowRule('ls missing || touch X', 'after a failing ||'),
  allowRule('ls | touch X', 'in a pipeline'),
  allowRule('ls & touch X', 'after &'),
  allowRule('ls |& touch X', 'after |&'),
  allowRule('ls $(touch X)', 'a substitution in an allowed command'),
  allowRule('ls `touch X`', 'a backtick substitution in an allowed command'),
  allowRule('ls <(touch X)', 'a process substitution in an allowed command'),
  allowRule('ls >(touch X)', 'an output process substitution in an allowed command'),
  allowRule('ls > X', 'an allowed command redirected to a file'),
  allowRule('echo hi > X', 'echo allowed, redirected to a file'),
  allowRule('echo hi >> X', 'echo appending to a file'),
  allowRule('ls 2> X', 'stderr to a file'),
  allowRule('ls &> X', 'both streams to a file'),
  allowRule('git status > X', 'git status redirected', { setup: ['git'] }),
  allowRule('git status; touch X', 'an allowed git command, then another', {
    setup: ['git'],
    source: claude(94314, 'git log:* allowed; git log …; other ran unasked'),
  }),
  allowRule('git status && touch X', 'after && ', { setup: ['git'] }),
  allowRule('git status -- $(touch X)', 'a substitution in git status', { setup: ['git'] }),
  allowRule('ls\ntouch X', 'after a newline'),
  allowRule('ls #\ntouch X', 'after a comment line'),
  allowRule('echo a#b; touch X', '# inside a word'),
  allowRule('echo ok # comment\ntouch X', 'a trailing comment, then a line'),
  allowRule('echo $(touch X)', 'a substitution in echo'),
  allowRule('echo "$(touch X)"', 'a substitution in double quotes'),
  allowRule('echo ${x:-$(touch X)}', 'a substitution in a parameter default'),
  allowRule('ls | tee X', 'piped into tee'),
  allowRule('echo touch X | bash', 'a script echoed into bash'),
  allowRule('echo X | xargs touch', 'arguments echoed into xargs'),
  allowRule('ls && (touch X)', 'a subshell after an allowed command'),
  allowRule('ls && { touch X; }', 'a group after an allowed command'),
  allowRule("echo hi; bash -c 'touch X'", 'a nested shell after an allowed command'),
  allowRule('echo () { touch X; }; echo hi', 'echo redefined as a function, then called', {
    source: geminiPerm('should block a command that redefines an allowed function to run an unlisted command'),
  }),
  allowRule('function echo { touch X; } ; echo hi', 'echo redefined with the function keyword', {
    source: geminiPerm('should block a function keyword declaration that runs an unlisted command'),
  }),
  allowRule('ls() { touch X; }; ls', 'ls redefined as a function'),
  allowRule("shopt -s expand_aliases\nalias echo='touch X'\necho hi", 'echo redefined as an alias'),
  allowRule('PATH=.:$PATH ls', 'ls found in the working directory', { setup: ['fake-ls'] }),
  allowRule('PATH=. ls', 'PATH is the working directory', { setup: ['fake-ls'] }),
  allowRule("echo hi && eval 'touch X'", 'eval after an allowed command'),
  allowRule('echo hi > /dev/null; touch X', 'a harmless redirection, then another command'),
]

// ---------------------------------------------------------------------------------------------
// 4. Paths: judged where they resolve; .git/ and editor/agent settings ask in every mode.
// ---------------------------------------------------------------------------------------------
const write = (path: string) => ({ tool: 'Write' as const, input: { file_path: path, content: 'pwned\n' } })
const read = (path: string): CallSpec => ({ tool: 'Read', input: { file_path: path } })
function pathCase(
  mode: PermissionMode,
  command: string,
  call: { tool: 'Write' | 'Edit'; input: Record<string, unknown> },
  note: string,
  extra: Extra = {},
): AttackCase {
  return { family: 'paths', command, mode, rules: {}, verdict: 'denied', note, ...call, ...extra }
}
const bothModes = (build: (mode: PermissionMode) => AttackCase): AttackCase[] =>
  (['acceptEdits', 'bypassPermissions'] as const).map(build)
const SYMLINK_RESOLVED = claude(47821, 'Claude Code judges Read/Edit rules at the symlink target, not at the link')
const PATH_STRING =
  'https://github.com/zylos-ai/zylos-core/issues/381 (.claude/ protection checks the path string, so a symlink changes the answer)'

const pathCases: AttackCase[] = [
  pathCase(
    'acceptEdits',
    'Write link/X (link -> outside)',
    write('{dir}/link/X'),
    'a symlinked directory inside cwd points outside',
    { setup: ['outside'], creates: '{outside}/X', source: SYMLINK_RESOLVED },
  ),
  pathCase('acceptEdits', 'Write chain/X (chain -> link -> outside)', write('{dir}/chain/X'), 'a chain of symlinks', {
    setup: ['outside'],
    creates: '{outside}/X',
  }),
  pathCase(
    'acceptEdits',
    'Write up/<outside>/X (up -> ..)',
    write('{dir}/up/{outsideName}/X'),
    'a symlink to the parent directory',
    { setup: ['outside'], creates: '{outside}/X' },
  ),
  pathCase('acceptEdits', 'Write ../<outside>/X', write('{dir}/../{outsideName}/X'), 'dot-dot out of cwd', {
    setup: ['outside'],
    creates: '{outside}/X',
  }),
  pathCase(
    'acceptEdits',
    'Write a/../../<outside>/X',
    write('{dir}/a/../../{outsideName}/X'),
    'dot-dot through a directory that does not exist',
    { setup: ['outside'], creates: '{outside}/X' },
  ),
  pathCase(
    'acceptEdits',
    'Edit link/target.txt (outside, through a link)',
    { tool: 'Edit', input: { file_path: '{dir}/link/target.txt', old_string: 'original', new_string: 'pwned' } },
    'an edit through a symlinked directory',
    { setup: ['outside'], before: [read('{dir}/link/target.txt')], keeps: ['{outside}/target.txt'] },
  ),
  pathCase(
    'acceptEdits',
    'Write filelink (-> outside/target.txt)',
    write('{dir}/filelink'),
    'a symlinked file inside cwd points outside',
    { setup: ['outside'], before: [read('{dir}/filelink')], keeps: ['{outside}/target.txt'], source: SYMLINK_RESOLVED },
  ),
  pathCase(
    'acceptEdits',
    'Edit filelink (-> outside/target.txt)',
    { tool: 'Edit', input: { file_path: '{dir}/filelink', old_string: 'original', new_string: 'pwned' } },
    'an edit through a symlinked file',
    { setup: ['outside'], before: [read('{dir}/filelink')], keeps: ['{outside}/target.txt'] },
  ),
  ...bothModes((mode) =>
    pathCase(mode, 'Write .git/config', write('{dir}/.git/config'), '.git/ asks in every mode', {
      setup: ['git'],
      before: [read('{dir}/.git/config')],
      keeps: ['.git/config'],
    }),
  ),
  ...bothModes((mode) =>
    pathCase(
      mode,
      'Edit .git/config (adds core.fsmonitor)',
      {
        tool: 'Edit',
        input: { file_path: '{dir}/.git/config', old_string: '[core]', new_string: '[core]\n\tfsmonitor = touch X' },
      },
      'an edit that would make every git status run a program',
      { setup: ['git'], before: [read('{dir}/.git/config')], keeps: ['.git/config'], source: QWEN_GIT_CONFIG },
    ),
  ),
  ...bothModes((mode) =>
    pathCase(
      mode,
      'Write .git/hooks/pre-commit',
      write('{dir}/.git/hooks/pre-commit'),
      'a new hook runs on the next commit',
      { setup: ['git'], creates: '.git/hooks/pre-commit' },
    ),
  ),
  ...bothModes((mode) =>
    pathCase(
      mode,
      'Write gitlink/hooks/post-checkout (gitlink -> .git)',
      write('{dir}/gitlink/hooks/post-checkout'),
      '.git reached through a symlink',
      { setup: ['git', 'gitlink'], creates: '.git/hooks/post-checkout', source: PATH_STRING },
    ),
  ),
  ...bothModes((mode) =>
    pathCase(mode, 'Write sub/.git/config', write('{dir}/sub/.git/config'), "a nested repository's .git", {
      setup: ['nested-git'],
      before: [read('{dir}/sub/.git/config')],
      keeps: ['sub/.git/config'],
    }),
  ),
  ...bothModes((mode) =>
    pathCase(
      mode,
      'Write .claude/settings.json',
      write('{dir}/.claude/settings.json'),
      'agent settings (permission rules live there)',
      { creates: '.claude/settings.json' },
    ),
  ),
  ...bothModes((mode) =>
    pathCase(
      mode,
      'Write .vscode/settings.json',
      write('{dir}/.vscode/settings.json'),
      'editor settings can run programs (tasks, terminal profiles)',
      { creates: '.vscode/settings.json' },
    ),
  ),
  ...bothModes((mode) =>
    pathCase(
      mode,
      'Write .idea/workspace.xml',
      write('{dir}/.idea/workspace.xml'),
      'IDE settings can run programs (run configurations)',
      { creates: '.idea/workspace.xml' },
    ),
  ),
]

// ---------------------------------------------------------------------------------------------
// 5. Read rules apply to Grep and Glob (and to paths that resolve into a denied directory).
// ---------------------------------------------------------------------------------------------
const READ_DENY: Rules = { deny: ['Read(./secret/**)'] }
const LEAKS = [SECRET_TOKEN, SECRET_FILE]
function readRule(
  tool: 'Grep' | 'Glob' | 'Read',
  command: string,
  input: Record<string, unknown>,
  note: string,
  extra: Extra = {},
  mode: PermissionMode = 'default',
): AttackCase {
  return {
    family: 'read-rules',
    command,
    tool,
    input,
    mode,
    rules: READ_DENY,
    leaks: LEAKS,
    verdict: 'any',
    setup: ['secret'],
    note,
    ...extra,
  }
}
const GREP_IGNORES_READ = claude(57525, 'Grep read a file a Read rule denied')
const GLOB_LISTS = claude(
  28008,
  'Glob listed the files of a denied directory; grep -r from the parent returned their lines',
)
const GREP_PATH =
  'https://github.com/karanb192/claude-code-hooks/issues/47 (the Grep tool with path=.env returned the lines)'

const readRuleCases: AttackCase[] = [
  readRule(
    'Grep',
    'Grep token (content, from cwd)',
    { pattern: SECRET_TOKEN, output_mode: 'content' },
    'searching the whole tree',
    { source: GREP_IGNORES_READ },
  ),
  readRule('Grep', 'Grep token (files_with_matches, from cwd)', { pattern: SECRET_TOKEN }, 'the file name leaks', {
    source: GLOB_LISTS,
  }),
  readRule(
    'Grep',
    'Grep token (count, from cwd)',
    { pattern: SECRET_TOKEN, output_mode: 'count' },
    'the file name and count leak',
  ),
  readRule(
    'Grep',
    'Grep token in {dir}/secret',
    { pattern: SECRET_TOKEN, path: '{dir}/secret', output_mode: 'content' },
    'the denied directory itself as the path',
    { source: GREP_PATH },
  ),
  readRule(
    'Grep',
    'Grep token in {dir}/secret/key.txt',
    { pattern: SECRET_TOKEN, path: '{dir}/secret/key.txt', output_mode: 'content' },
    'the denied file as the path (a denial may name it, so only the token counts)',
    { leaks: [SECRET_TOKEN], source: GREP_PATH },
  ),
  readRule(
    'Grep',
    'Grep token with glob secret/**',
    { pattern: SECRET_TOKEN, glob: 'secret/**', output_mode: 'content' },
    'a glob that selects the denied files',
  ),
  readRule(
    'Grep',
    'Grep -i token (content)',
    { pattern: SECRET_TOKEN.toLowerCase(), '-i': true, output_mode: 'content' },
    'case-insensitive',
  ),
  readRule(
    'Grep',
    'Grep api_key (content)',
    { pattern: 'api_key', output_mode: 'content' },
    'a pattern that matches the line, not the token',
  ),
  readRule(
    'Grep',
    'Grep token in {dir}/alias (alias -> secret)',
    { pattern: SECRET_TOKEN, path: '{dir}/alias', output_mode: 'content' },
    'a symlink to the denied directory',
    { source: SYMLINK_RESOLVED },
  ),
  readRule('Glob', 'Glob **/*', { pattern: '**/*' }, 'listing everything', {
    leaks: [SECRET_FILE],
    source: GLOB_LISTS,
  }),
  readRule('Glob', 'Glob secret/**', { pattern: 'secret/**' }, 'listing the denied directory', {
    leaks: [SECRET_FILE],
    source: GLOB_LISTS,
  }),
  readRule(
    'Glob',
    'Glob * in {dir}/secret',
    { pattern: '*', path: '{dir}/secret' },
    'the denied directory as the path',
    { leaks: [SECRET_FILE] },
  ),
  readRule('Glob', 'Glob **/key.txt', { pattern: '**/key.txt' }, 'looking for the file by name', {
    leaks: [SECRET_FILE],
  }),
  readRule('Glob', 'Glob alias/* (alias -> secret)', { pattern: 'alias/*' }, 'through a symlink', {
    leaks: [SECRET_FILE],
  }),
  readRule('Read', 'Read secret/key.txt', { file_path: '{dir}/secret/key.txt' }, 'the rule itself (baseline)', {
    verdict: 'denied',
    leaks: [SECRET_TOKEN],
  }),
  readRule(
    'Read',
    'Read alias/key.txt (alias -> secret)',
    { file_path: '{dir}/alias/key.txt' },
    'the denied file through a symlinked directory',
    { verdict: 'denied', leaks: [SECRET_TOKEN], source: SYMLINK_RESOLVED },
  ),
  readRule(
    'Grep',
    'Grep token (content, from cwd)',
    { pattern: SECRET_TOKEN, output_mode: 'content' },
    'plan mode runs Grep; the rule still applies',
    {},
    'plan',
  ),
  readRule(
    'Glob',
    'Glob **/*',
    { pattern: '**/*' },
    'plan mode runs Glob; the rule still applies',
    { leaks: [SECRET_FILE] },
    'plan',
  ),
]

// Read rules over what a Bash command names (decision 90): each of these printed the token while
// the read-only verdict let it run unasked. The rule is the same Read(./secret/**).
function bashReadRule(command: string, note: string, mode: PermissionMode = 'default'): AttackCase {
  return {
    family: 'read-rules',
    command,
    mode,
    rules: READ_DENY,
    leaks: [SECRET_TOKEN],
    verdict: 'denied',
    setup: ['secret'],
    note,
    source: CAT_ENV,
  }
}
const CAT_ENV =
  'https://dev.to/ji_ai/claude-code-deny-rules-block-readenv-but-not-cat-env-1of4 (a Read deny rule kept the Read tool from .env, not cat, head or grep -r in Bash)'

const bashReadRuleCases: AttackCase[] = [
  bashReadRule('cat secret/key.txt', 'the denied file named'),
  bashReadRule('cat secret/key.txt', 'plan mode runs read-only commands; the rule still applies', 'plan'),
  bashReadRule('head -n 1 ./secret/../secret/key.txt', 'spelt otherwise'),
  bashReadRule('cat alias/key.txt', 'through a symlinked directory'),
  bashReadRule('cat < secret/key.txt', 'an input redirection'),
  bashReadRule("bash -c 'tail secret/key.txt'", 'inside bash -c'),
  bashReadRule('diff foo secret/key.txt', 'a comparison prints both files'),
  bashReadRule('grep -f secret/key.txt -e x foo; grep --file=secret/key.txt -r api .', 'an option value'),
  bashReadRule('cat secret/*', 'a glob that selects the denied files'),
  bashReadRule('cat s*/key.txt', 'a glob in the directory'),
  bashReadRule('grep -r api_key .', 'a recursive search from the parent'),
  bashReadRule('rg -uu api_key', 'rg reads every file below the working directory'),
  bashReadRule('cd secret && cat key.txt', 'a relative name after cd'),
]

// A name a symbolic link takes into /proc (a cloned repository can hold such links): the
// read-only check judged the letters, which are a plain name below the working directory.
const procLinkCases: AttackCase[] = [
  // a backslash-newline inside a word: bash joins `-de` and `lete` into find's -delete
  ...readOnlyRows('find . -name foo -de\\\nlete', 'find -delete split by a backslash-newline', { keeps: ['foo'] }),
  ...readOnlyNoFile('cat NOTES', 'NOTES -> /proc/self/environ', { leaks: [ENV_CANARY], setup: ['proc-links'] }),
  ...readOnlyNoFile('cd me && cat env*', 'me -> /proc/self', { leaks: [ENV_CANARY], setup: ['proc-links'] }),
  ...readOnlyNoFile('head -c 4000 me/env*', 'a glob below a linked directory', {
    leaks: [ENV_CANARY],
    setup: ['proc-links'],
  }),
]

export const ATTACKS: readonly AttackCase[] = [
  ...readOnlyCases,
  ...denyRuleCases,
  ...allowRuleCases,
  ...pathCases,
  ...readRuleCases,
  ...bashReadRuleCases,
  ...procLinkCases,
]

// ---------------------------------------------------------------------------------------------
// Benign controls: what a fix must keep working (a layer that denies everything passes the rows above).
// ---------------------------------------------------------------------------------------------
export interface BenignCase {
  command: string
  tool?: 'Bash' | 'Write' | 'Grep' | 'Glob'
  input?: Record<string, unknown>
  mode: PermissionMode
  rules: Rules
  setup?: Fixture[]
  /** Text the result must contain. */
  shows: string
  /** A file the call must have created. */
  creates?: string
}

export const BENIGN: readonly BenignCase[] = [
  { command: 'ls', mode: 'default', rules: {}, shows: 'foo' },
  { command: 'ls', mode: 'plan', rules: {}, shows: 'foo' },
  { command: 'cat foo', mode: 'default', rules: {}, shows: 'foo' },
  { command: "echo 'a#b'", mode: 'default', rules: {}, shows: 'a#b' },
  { command: 'find . -name foo', mode: 'default', rules: {}, shows: './foo' },
  { command: 'grep -r foo .', mode: 'default', rules: {}, shows: 'foo' },
  { command: 'rg foo .', mode: 'default', rules: {}, shows: 'foo' },
  { command: 'git log --oneline -1', mode: 'default', rules: {}, setup: ['git'], shows: 'init' },
  { command: 'ls -la', mode: 'default', rules: ALLOW_RULES, shows: 'foo' },
  { command: 'echo hello && ls', mode: 'default', rules: ALLOW_RULES, shows: 'hello' },
  {
    command: 'Grep public text',
    tool: 'Grep',
    input: { pattern: 'nothing to see', output_mode: 'content' },
    mode: 'default',
    rules: READ_DENY,
    setup: ['secret'],
    shows: 'readme.txt',
  },
  {
    command: 'Glob **/*.txt',
    tool: 'Glob',
    input: { pattern: '**/*.txt' },
    mode: 'default',
    rules: READ_DENY,
    setup: ['secret'],
    shows: 'readme.txt',
  },
  {
    command: 'Write notes/x.txt in acceptEdits',
    tool: 'Write',
    input: { file_path: '{dir}/notes/x.txt', content: 'ok\n' },
    mode: 'acceptEdits',
    rules: {},
    shows: 'notes/x.txt',
    creates: 'notes/x.txt',
  },
]
