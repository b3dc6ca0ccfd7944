import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRead, type PdfLibrary } from '../../../src/index.js'
import { testKernel, assistant } from '../../helpers.js'
import { makePdf } from './pdf-fixture.js'
import { project, text } from './setup.js'

const three = makePdf(['Hello page one', 'Second page (here)', 'Third'])

describe('Read of a PDF', () => {
  it('returns the text of every page of a short PDF, each under its number', async () => {
    const { call, path } = project({ 'doc.pdf': three })
    expect(text(await call('Read', { file_path: path('doc.pdf') }))).toBe(
      [
        `PDF ${path('doc.pdf')}: 3 pages; pages 1-3 shown below.`,
        '--- page 1 ---\nHello page one',
        '--- page 2 ---\nSecond page (here)',
        '--- page 3 ---\nThird',
      ].join('\n\n'),
    )
  })

  it('returns only the pages asked for', async () => {
    const { call, path } = project({ 'doc.pdf': three })
    expect(text(await call('Read', { file_path: path('doc.pdf'), pages: '2' }))).toBe(
      `PDF ${path('doc.pdf')}: 3 pages; page 2 shown below.\n\n--- page 2 ---\nSecond page (here)`,
    )
    const some = text(await call('Read', { file_path: path('doc.pdf'), pages: '3, 1' }))
    expect(some).toMatch(/pages 1, 3 shown below\.\n\n--- page 1 ---\nHello page one\n\n--- page 3 ---\nThird$/)
    expect(text(await call('Read', { file_path: path('doc.pdf'), pages: '2-3' }))).not.toContain('page one')
  })

  it('reads at most 20 pages per call, and says how to continue', async () => {
    const pages = Array.from({ length: 25 }, (_, i) => `Text of page ${i + 1}`)
    const { call, path } = project({ 'long.pdf': makePdf(pages) })
    const first = text(await call('Read', { file_path: path('long.pdf') }))
    expect(first).toMatch(/^PDF .*long\.pdf: 25 pages; pages 1-20 shown below\./)
    expect(first).toContain('--- page 20 ---\nText of page 20')
    expect(first).not.toContain('page 21')
    expect(first).toMatch(/… 5 more pages \(25 in all\); continue with pages "21-25"$/)
    expect(text(await call('Read', { file_path: path('long.pdf'), pages: '21-25' }))).toContain(
      '--- page 25 ---\nText of page 25',
    )
    expect(text(await call('Read', { file_path: path('long.pdf'), pages: '1-21' }))).toMatch(
      /asks for 21 pages; Read returns at most 20 pages per call/,
    )
  })

  it('refuses pages that do not parse, do not exist, or are given for another file', async () => {
    const { call, path } = project({ 'doc.pdf': three, 'a.txt': 'x' })
    expect(text(await call('Read', { file_path: path('doc.pdf'), pages: '4' }))).toBe(
      `Read failed: ${path('doc.pdf')} has 3 pages, so page 4 does not exist; ask for pages 1-3 or fewer`,
    )
    expect(text(await call('Read', { file_path: path('doc.pdf'), pages: 'first' }))).toMatch(
      /pages "first" does not parse: give a page \("3"\), a range \("1-5"\)/,
    )
    expect(text(await call('Read', { file_path: path('doc.pdf'), pages: '3-1' }))).toMatch(/runs backwards/)
    expect(text(await call('Read', { file_path: path('doc.pdf'), pages: '0' }))).toMatch(/numbered from 1/)
    expect(text(await call('Read', { file_path: path('doc.pdf'), offset: 2 }))).toMatch(
      /offset and limit count lines of text; for a PDF, choose pages with pages/,
    )
    expect(text(await call('Read', { file_path: path('a.txt'), pages: '1' }))).toMatch(
      /pages is for PDF files only; .*a\.txt is not a \.pdf/,
    )
  })

  it('stops at the characters Read returns at once, at a page or inside one too long alone', async () => {
    // PDF.js clips text that runs off the page, so long pages come from a library given here.
    const texts = ['w'.repeat(150_000), 'w'.repeat(150_000), 'small']
    const library = (pages: string[]): PdfLibrary => ({
      getDocumentProxy: async () => ({
        numPages: pages.length,
        getPage: async (n) => ({ getTextContent: async () => ({ items: [{ str: pages[n - 1], hasEOL: false }] }) }),
      }),
    })
    const { root, path } = project({ 'doc.pdf': three })
    const readWith = async (pages: string[]): Promise<string> => {
      const kernel = testKernel([createRead({ loadPdfLibrary: async () => library(pages) })], { cwd: root })
      const { message } = await kernel.runTurn(assistant(['call_1', 'Read', { file_path: path('doc.pdf') }]))
      return message.content[0] === undefined ? '' : text(message.content[0])
    }
    const two = await readWith(texts)
    expect(
      two.endsWith(
        `--- page 1 ---\n${texts[0]}\n\n… pages 2-3 not shown: more text than Read returns at once (256000 characters); read them with pages in another call`,
      ),
    ).toBe(true)
    const one = await readWith(['v'.repeat(300_000)])
    expect(one.length).toBeLessThan(256_100)
    expect(one.slice(-60)).toMatch(/v… \[page cut: 300015 characters\]$/)
  })

  it('says a file that is not a PDF could not be read as one', async () => {
    const { call, path } = project({ 'fake.pdf': 'just text, no PDF here\n' })
    expect(text(await call('Read', { file_path: path('fake.pdf') }))).toMatch(
      /^Read failed: .*fake\.pdf could not be read as a PDF \(/,
    )
  })

  it('without the PDF library, says to install unpdf', async () => {
    const { root, path } = project({ 'doc.pdf': three })
    const missing = Object.assign(new Error(`Cannot find package 'unpdf' imported from ${join(root, 'x.js')}`), {
      code: 'ERR_MODULE_NOT_FOUND',
    })
    const read = createRead({ loadPdfLibrary: () => Promise.reject(missing) })
    const kernel = testKernel([read], { cwd: root, permissions: { mode: 'bypassPermissions' } })
    const { message } = await kernel.runTurn(assistant(['call_1', 'Read', { file_path: path('doc.pdf') }]))
    const block = message.content[0]
    expect(block?.is_error).toBe(true)
    expect(block && text(block)).toBe(
      `Read failed: reading PDF files needs the optional package unpdf, which could not be loaded (Cannot find package 'unpdf' imported from ${join(root, 'x.js')}); install it with: npm install unpdf`,
    )
  })

  it('uses a PDF library the app gives', async () => {
    const { root, path } = project({ 'doc.pdf': three })
    const library: PdfLibrary = {
      getDocumentProxy: async () => ({
        numPages: 1,
        getPage: async () => ({ getTextContent: async () => ({ items: [{ str: 'from the app', hasEOL: false }] }) }),
      }),
    }
    const kernel = testKernel([createRead({ loadPdfLibrary: async () => library })], {
      cwd: root,
      permissions: { mode: 'bypassPermissions' },
    })
    const { message } = await kernel.runTurn(assistant(['call_1', 'Read', { file_path: path('doc.pdf') }]))
    expect(message.content[0] && text(message.content[0])).toContain('--- page 1 ---\nfrom the app')
  })
})
