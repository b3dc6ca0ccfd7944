import { readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { project, text } from './setup.js'

/** A notebook as Jupyter writes it: keys sorted, one-space indent, a final newline. */
const jupyter = (notebook: unknown): string => `${JSON.stringify(notebook, null, 1)}\n`

const markdown = { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'Some *text*'] }
const code = {
  cell_type: 'code',
  execution_count: 3,
  id: 'calc',
  metadata: { tags: ['keep'] },
  outputs: [
    { name: 'stdout', output_type: 'stream', text: ['hello\n', 'world\n'] },
    {
      data: { 'image/png': 'iVBORw0KGgo=', 'text/plain': ['<Figure size 640x480>'] },
      execution_count: 3,
      metadata: {},
      output_type: 'execute_result',
    },
  ],
  source: ['x = 1\n', 'print(x)'],
}
const failing = {
  cell_type: 'code',
  execution_count: 4,
  id: 'oops',
  metadata: {},
  outputs: [
    {
      ename: 'ZeroDivisionError',
      evalue: 'division by zero',
      output_type: 'error',
      traceback: ['\u001b[0;31mZeroDivisionError\u001b[0m Traceback', '----> 1 1/0'],
    },
  ],
  source: '1/0',
}
const notebook = {
  cells: [markdown, code, failing],
  metadata: { kernelspec: { display_name: 'Python 3', name: 'python3' }, language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
}

describe('Read of a notebook', () => {
  it('shows its cells with ids, types, sources and text outputs; images named, not included', async () => {
    const { call, path } = project({ 'n.ipynb': jupyter(notebook) })
    expect(text(await call('Read', { file_path: path('n.ipynb') }))).toBe(
      [
        `Notebook ${path('n.ipynb')}: 3 cells, language python (nbformat 4.5). NotebookEdit takes a cell by the id shown.`,
        '<cell id="intro" type="markdown">\n# Title\nSome *text*\n</cell>',
        '<cell id="calc" type="code" execution_count="3">\nx = 1\nprint(x)\n</cell>\n<outputs>\nhello\nworld\n[image/png output (12 characters), not shown]\n<Figure size 640x480>\n</outputs>',
        '<cell id="oops" type="code" execution_count="4">\n1/0\n</cell>\n<outputs>\nZeroDivisionError: division by zero\nZeroDivisionError Traceback\n----> 1 1/0\n</outputs>',
      ].join('\n\n'),
    )
  })

  it('names cells without ids cell-N, cuts long outputs, and gives the raw JSON for offset and limit', async () => {
    const old = {
      cells: [
        {
          cell_type: 'code',
          execution_count: 1,
          metadata: {},
          outputs: [{ name: 'stdout', output_type: 'stream', text: 'y'.repeat(2500) }],
          source: 'print("y" * 2500)',
        },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 4,
    }
    const { call, path } = project({ 'old.ipynb': jupyter(old) })
    const shown = text(await call('Read', { file_path: path('old.ipynb') }))
    expect(shown).toContain('<cell id="cell-0" type="code" execution_count="1">')
    expect(shown).toContain(`${'y'.repeat(2000)}\n… 500 more characters of output not shown\n</outputs>`)
    expect(text(await call('Read', { file_path: path('old.ipynb'), offset: 1, limit: 2 }))).toBe(
      '     1\t{\n     2\t "cells": [\n… ' +
        `${jupyter(old).split('\n').length - 3} more lines (${jupyter(old).split('\n').length - 1} in all); continue with offset 3`,
    )
  })

  it('refuses a file that is not an nbformat 4 notebook, saying why', async () => {
    const { call, path } = project({ 'bad.ipynb': '{"cells": 3', 'v3.ipynb': jupyter({ nbformat: 3, worksheets: [] }) })
    expect(text(await call('Read', { file_path: path('bad.ipynb') }))).toMatch(/bad\.ipynb is not valid JSON/)
    expect(text(await call('Read', { file_path: path('v3.ipynb') }))).toMatch(
      /v3\.ipynb is not an nbformat 4 notebook \(.*at nbformat\); Read it with offset and limit/,
    )
  })
})

describe('NotebookEdit', () => {
  const setup = () => {
    const p = project({ 'n.ipynb': jupyter(notebook) })
    return { ...p, nb: p.path('n.ipynb'), read: () => p.call('Read', { file_path: p.path('n.ipynb') }) }
  }
  const onDisk = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'))

  it('replaces a code cell: new source in Jupyter lines, outputs and count cleared, the rest as it was', async () => {
    const { call, nb, read } = setup()
    await read()
    expect(
      text(await call('NotebookEdit', { notebook_path: nb, cell_id: 'calc', new_source: 'y = 2\nprint(y)\n' })),
    ).toBe(`Replaced the source of cell calc of ${nb}`)
    const changed = { ...code, execution_count: null, outputs: [], source: ['y = 2\n', 'print(y)\n'] }
    expect(readFileSync(nb, 'utf8')).toBe(jupyter({ ...notebook, cells: [markdown, changed, failing] }))
  })

  it('replaces with a new type: a code cell turned markdown loses outputs and count; a string source stays a string', async () => {
    const { call, nb, read } = setup()
    await read()
    await call('NotebookEdit', { notebook_path: nb, cell_id: 'oops', new_source: 'Was *code*', cell_type: 'markdown' })
    expect(onDisk(nb)).toEqual({
      ...notebook,
      cells: [markdown, code, { cell_type: 'markdown', id: 'oops', metadata: {}, source: 'Was *code*' }],
    })
  })

  it('inserts after a cell, or at the start without cell_id, with a fresh id', async () => {
    const { call, nb, read } = setup()
    await read()
    expect(
      text(
        await call('NotebookEdit', {
          notebook_path: nb,
          cell_id: 'intro',
          new_source: 'z = 3',
          cell_type: 'code',
          edit_mode: 'insert',
        }),
      ),
    ).toMatch(new RegExp(`^Inserted code cell (cell_\\d+) after intro of ${nb}$`))
    await call('NotebookEdit', { notebook_path: nb, new_source: '# Top', cell_type: 'markdown', edit_mode: 'insert' })
    const cells = (onDisk(nb) as { cells: Array<{ id: string }> }).cells
    expect(cells.map((c) => c.id)).toEqual([
      expect.stringMatching(/^cell_\d+$/),
      'intro',
      expect.stringMatching(/^cell_\d+$/),
      'calc',
      'oops',
    ])
    expect(cells[2]).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: cells[2]?.id,
      metadata: {},
      outputs: [],
      source: ['z = 3'],
    })
    expect(cells[0]).toEqual({ cell_type: 'markdown', id: cells[0]?.id, metadata: {}, source: ['# Top'] })
    expect(new Set(cells.map((c) => c.id)).size).toBe(5)
  })

  it('deletes a cell, by id or as cell-N', async () => {
    const { call, nb, read } = setup()
    await read()
    expect(
      text(await call('NotebookEdit', { notebook_path: nb, cell_id: 'calc', new_source: '', edit_mode: 'delete' })),
    ).toBe(`Deleted cell calc of ${nb}`)
    await call('NotebookEdit', { notebook_path: nb, cell_id: 'cell-1', new_source: '', edit_mode: 'delete' })
    expect(readFileSync(nb, 'utf8')).toBe(jupyter({ ...notebook, cells: [markdown] }))
  })

  it('refuses bad input clearly, and an unread or changed notebook', async () => {
    const { call, nb, read, path } = setup()
    expect(text(await call('NotebookEdit', { notebook_path: nb, cell_id: 'calc', new_source: 'x' }))).toMatch(
      /has not been read in this session; Read it before you edit it/,
    )
    await read()
    expect(text(await call('NotebookEdit', { notebook_path: nb, cell_id: 'nope', new_source: 'x' }))).toBe(
      `NotebookEdit failed: ${nb} has no cell "nope"; its cells are intro, calc, oops. Read the notebook to see them`,
    )
    expect(text(await call('NotebookEdit', { notebook_path: nb, new_source: 'x', edit_mode: 'insert' }))).toMatch(
      /cell_type is required to insert a cell/,
    )
    expect(text(await call('NotebookEdit', { notebook_path: nb, new_source: 'x' }))).toMatch(
      /cell_id is required to replace a cell/,
    )
    expect(text(await call('NotebookEdit', { notebook_path: path('a.py'), cell_id: 'x', new_source: 'x' }))).toMatch(
      /is not a Jupyter notebook \(\.ipynb\); use Edit/,
    )
    const before = readFileSync(nb, 'utf8')
    writeFileSync(nb, before.replace('Title', 'Other'))
    const future = new Date(Date.now() + 5000)
    utimesSync(nb, future, future)
    expect(text(await call('NotebookEdit', { notebook_path: nb, cell_id: 'calc', new_source: 'x' }))).toMatch(
      /changed on disk since you read it/,
    )
    expect(readFileSync(nb, 'utf8')).toBe(before.replace('Title', 'Other'))
  })

  it('keeps another indentation the file uses, and its missing final newline', async () => {
    const { call, path } = project({ 't.ipynb': JSON.stringify(notebook, null, '\t') })
    await call('Read', { file_path: path('t.ipynb') })
    await call('NotebookEdit', { notebook_path: path('t.ipynb'), cell_id: 'intro', new_source: '# New' })
    expect(readFileSync(path('t.ipynb'), 'utf8')).toBe(
      JSON.stringify({ ...notebook, cells: [{ ...markdown, source: ['# New'] }, code, failing] }, null, '\t'),
    )
  })

  it('keeps a notebook written on one line on one line', async () => {
    const { call, path } = project({ 'c.ipynb': JSON.stringify(notebook) })
    await call('Read', { file_path: path('c.ipynb') })
    await call('NotebookEdit', { notebook_path: path('c.ipynb'), cell_id: 'oops', new_source: '', edit_mode: 'delete' })
    expect(readFileSync(path('c.ipynb'), 'utf8')).toBe(JSON.stringify({ ...notebook, cells: [markdown, code] }))
  })

  it('falls under Edit rules', async () => {
    const { call, path } = project(
      { 'n.ipynb': jupyter(notebook) },
      { permissions: { mode: 'bypassPermissions', deny: ['Edit(./n.ipynb)'] } },
    )
    await call('Read', { file_path: path('n.ipynb') })
    expect(
      text(await call('NotebookEdit', { notebook_path: path('n.ipynb'), cell_id: 'calc', new_source: 'x' })),
    ).toMatch(/Edit\(\.\/n\.ipynb\)/)
    expect(readFileSync(path('n.ipynb'), 'utf8')).toBe(jupyter(notebook))
  })
})
