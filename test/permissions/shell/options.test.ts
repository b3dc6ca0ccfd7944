// The getopt reading the wrappers rely on to find where the wrapped command starts, called
// directly: a misread option either hides the command a wrapper runs or refuses a plain one.
// test/permissions/shell/wrappers.test.ts drives the same through each wrapper's real options.
import { describe, expect, it } from 'vitest'
import { canonicalLong, scanOptions } from '../../../src/permissions/shell/options.js'
import type { OptionScan, OptionSpec } from '../../../src/permissions/shell/options.js'
import { literalWord } from '../../../src/permissions/shell/words.js'
import type { Word } from '../../../src/permissions/shell/words.js'

/** Literal words, split at spaces; `$…` words are computed at run time, as the parse would say. */
const words = (text: string): Word[] =>
  text.split(' ').map((raw) => (raw.includes('$') ? { value: raw, raw, expansions: ['parameter'] } : literalWord(raw)))

const SPEC: OptionSpec = {
  flags: 'iv',
  withArg: 'nu',
  long: ['verbose', 'help'],
  longArg: ['signal', 'adjustment'],
  longOptional: ['differences'],
}

describe('scanOptions', () => {
  // [words after the wrapper's own, spec, the scan]; every scan starts at the word after `wrap`.
  const rows: Array<[string, OptionSpec, OptionScan]> = [
    // The first word that is not an option is the command; `-` is one such word.
    ['wrap rm x', SPEC, { ok: true, options: [], operand: 1 }],
    ['wrap - x', SPEC, { ok: true, options: [], operand: 1 }],
    ['wrap -v - x', SPEC, { ok: true, options: [{ name: 'v', value: undefined }], operand: 2 }],
    // `--` ends the options; the command is the word after it, even one that looks like an option.
    ['wrap -- -v x', SPEC, { ok: true, options: [], operand: 2 }],
    ['wrap -- x', {}, { ok: true, options: [], operand: 2 }],
    // Flags, clusters of them, and a short option's argument, attached or in the next word.
    [
      'wrap -iv rm',
      SPEC,
      {
        ok: true,
        options: [
          { name: 'i', value: undefined },
          { name: 'v', value: undefined },
        ],
        operand: 2,
      },
    ],
    ['wrap -n5 rm', SPEC, { ok: true, options: [{ name: 'n', value: '5' }], operand: 2 }],
    [
      'wrap -vn5 rm',
      SPEC,
      {
        ok: true,
        options: [
          { name: 'v', value: undefined },
          { name: 'n', value: '5' },
        ],
        operand: 2,
      },
    ],
    ['wrap -n 5 rm', SPEC, { ok: true, options: [{ name: 'n', value: '5' }], operand: 3 }],
    [
      'wrap -vn 5 rm',
      SPEC,
      {
        ok: true,
        options: [
          { name: 'v', value: undefined },
          { name: 'n', value: '5' },
        ],
        operand: 3,
      },
    ],
    ['wrap -n -v rm', SPEC, { ok: true, options: [{ name: 'n', value: '-v' }], operand: 3 }],
    // Long options: flags, values after `=` or in the next word, optional values only after `=`.
    ['wrap --help rm', SPEC, { ok: true, options: [{ name: 'help', value: undefined }], operand: 2 }],
    ['wrap --adjustment=3 rm', SPEC, { ok: true, options: [{ name: 'adjustment', value: '3' }], operand: 2 }],
    ['wrap --adjustment= rm', SPEC, { ok: true, options: [{ name: 'adjustment', value: '' }], operand: 2 }],
    ['wrap --signal KILL rm', SPEC, { ok: true, options: [{ name: 'signal', value: 'KILL' }], operand: 3 }],
    ['wrap --signal=a=b rm', SPEC, { ok: true, options: [{ name: 'signal', value: 'a=b' }], operand: 2 }],
    ['wrap --differences rm', SPEC, { ok: true, options: [{ name: 'differences', value: undefined }], operand: 2 }],
    ['wrap --differences=x rm', SPEC, { ok: true, options: [{ name: 'differences', value: 'x' }], operand: 2 }],
    // getopt_long takes any unambiguous prefix, the shortest too.
    ['wrap --v rm', SPEC, { ok: true, options: [{ name: 'verbose', value: undefined }], operand: 2 }],
    ['wrap --adj 3 rm', SPEC, { ok: true, options: [{ name: 'adjustment', value: '3' }], operand: 3 }],
    ['wrap --sig=KILL rm', SPEC, { ok: true, options: [{ name: 'signal', value: 'KILL' }], operand: 2 }],
    // Unknown means unknown: the scan fails, naming the option.
    ['wrap -Z rm', SPEC, { ok: false, reason: 'wrap: option -Z is not understood' }],
    ['wrap -Z rm', { flags: 'v' }, { ok: false, reason: 'wrap: option -Z is not understood' }],
    ['wrap -vZ rm', SPEC, { ok: false, reason: 'wrap: option -Z is not understood' }],
    ['wrap --bogus rm', SPEC, { ok: false, reason: 'wrap: option --bogus is not understood' }],
    ['wrap --bogus=1 rm', SPEC, { ok: false, reason: 'wrap: option --bogus is not understood' }],
    ['wrap --=x rm', SPEC, { ok: false, reason: 'wrap: option -- is not understood' }],
    ['wrap --help rm', { flags: 'v' }, { ok: false, reason: 'wrap: option --help is not understood' }],
    ['wrap --help rm', { long: ['help'] }, { ok: true, options: [{ name: 'help', value: undefined }], operand: 2 }],
    ['wrap --help=1 rm', SPEC, { ok: false, reason: 'wrap: option --help takes no value' }],
    ['wrap --help=1 rm', { long: ['help'] }, { ok: false, reason: 'wrap: option --help takes no value' }],
    [
      'wrap --help=1 rm',
      { long: ['help'], longOptional: ['x'] },
      { ok: false, reason: 'wrap: option --help takes no value' },
    ],
    ['wrap -n', SPEC, { ok: false, reason: 'wrap: option n needs an argument' }],
    ['wrap --signal', SPEC, { ok: false, reason: 'wrap: option signal needs an argument' }],
    // A computed word could be any option, or the end of them.
    ['wrap $X rm', SPEC, { ok: false, reason: 'an option of wrap is computed at run time ($X)' }],
    ['wrap -n $N rm', SPEC, { ok: false, reason: 'an option of wrap is computed at run time ($N)' }],
    ['wrap -v', SPEC, { ok: true, options: [{ name: 'v', value: undefined }], operand: 2 }],
  ]
  it.each(rows)('%j with %j', (text, spec, scan) => {
    expect(scanOptions(words(text), 1, spec, 'wrap')).toEqual(scan)
  })

  it('starts where it is told', () => {
    expect(scanOptions(words('-v rm'), 0, SPEC, 'wrap')).toEqual({
      ok: true,
      options: [{ name: 'v', value: undefined }],
      operand: 1,
    })
  })
})

describe('canonicalLong', () => {
  const RG: OptionSpec = { long: ['pre'], longArg: ['pre-glob'] }
  // [given, spec, the option it names]
  const rows: Array<[string, OptionSpec, string | undefined]> = [
    // A full name is that option even where it is also the prefix of another.
    ['pre', RG, 'pre'],
    ['pre-g', RG, 'pre-glob'],
    // An ambiguous prefix names nothing, and neither does an empty one.
    ['pr', RG, undefined],
    ['', { long: ['help'] }, undefined],
    ['x', RG, undefined],
    // Each list of the spec counts, and a spec without lists knows no option.
    ['he', { long: ['help'] }, 'help'],
    ['si', { longArg: ['signal'] }, 'signal'],
    ['di', { longOptional: ['differences'] }, 'differences'],
    ['S', {}, undefined],
  ]
  it.each(rows)('%j with %j is %j', (given, spec, name) => {
    expect(canonicalLong(given, spec)).toBe(name)
  })
})
