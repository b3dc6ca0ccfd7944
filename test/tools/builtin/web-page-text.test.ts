import { describe, expect, it } from 'vitest'
import { bodyKind, decodeBody, htmlText, mediaType } from '../../../src/tools/builtin/web-page-text.js'

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)

describe('web page text', () => {
  it('reads a Content-Type header: the type in lower case and its charset', () => {
    expect(mediaType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ type: 'text/html', charset: 'ISO-8859-1' })
    expect(mediaType('application/json')).toEqual({ type: 'application/json', charset: undefined })
    expect(mediaType(undefined)).toEqual({ type: undefined, charset: undefined })
  })

  it('tells HTML, text and binary apart by type, and sniffs a body that has none', () => {
    const some = bytes('x')
    expect(bodyKind('application/xhtml+xml', some)).toBe('html')
    expect(bodyKind('application/vnd.api+json', some)).toBe('text')
    expect(bodyKind('image/svg+xml', some)).toBe('text')
    expect(bodyKind('text/csv', some)).toBe('text')
    expect(bodyKind('application/pdf', some)).toBe('binary')
    expect(bodyKind('application/octet-stream', some)).toBe('binary')
    expect(bodyKind(undefined, bytes('  <!DOCTYPE html><p>hi'))).toBe('html')
    expect(bodyKind(undefined, bytes('plain words ü'))).toBe('text')
    expect(bodyKind(undefined, new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]))).toBe('binary')
    expect(bodyKind(undefined, new Uint8Array([0xff, 0xfe, 0xfd, 0x41, 0x42, 0x43, 0x44]))).toBe('binary')
  })

  it('decodes in the charset given, UTF-8 when the label is unknown', () => {
    expect(decodeBody(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'iso-8859-1')).toBe('café')
    expect(decodeBody(bytes('café'), 'no-such-charset')).toBe('café')
  })

  it('takes a page Readability cannot read whole, without its scripts and styles', async () => {
    const html =
      '<html><head><title>Tiny</title><style>p{color:red}</style></head><body><script>var secret = 1</script><p>Short <a href="b.html">page</a>.</p></body></html>'
    const markdown = await htmlText(html, 'http://site.test/dir/a.html', 'markdown')
    expect(markdown).toEqual({ kind: 'html', title: 'Tiny', text: 'Short [page](http://site.test/dir/b.html).' })
    const text = await htmlText(html, 'http://site.test/dir/a.html', 'text')
    expect(text.text).toBe('Short page.')
  })
})
