/** BM25 and the tokenizer: name parts, weights, ties by name, determinism. */
import { describe, expect, it } from 'vitest'
import { Bm25Index, tokenize } from '../../../src/tools/pool/bm25.js'

const doc = (name: string, description = '', hint = '') => ({
  name,
  fields: [
    { text: name, weight: 3 },
    { text: hint, weight: 2 },
    { text: description, weight: 1 },
  ],
})

describe('tokenize', () => {
  it('splits on __, _, -, camelCase and digits; lower case; plural s off', () => {
    expect(tokenize('mcp__github__createPullRequest')).toEqual(['mcp', 'github', 'create', 'pull', 'request'])
    expect(tokenize('send_slack-messages')).toEqual(['send', 'slack', 'message'])
    expect(tokenize('HTTPServer v2')).toEqual(['http', 'server', 'v', '2'])
    expect(tokenize('queries class')).toEqual(['query', 'class'])
    expect(tokenize('')).toEqual([])
  })
})

describe('Bm25Index', () => {
  const index = new Bm25Index([
    doc('mcp__slack__send_message', 'Posts a message to a channel'),
    doc('mcp__github__create_issue', 'Opens an issue in a repository'),
    doc('mcp__jira__create_ticket', 'Opens a ticket', 'issue tracker bug'),
    doc('NotesWrite', 'Writes a note'),
  ])

  it('ranks a name match above a description match, and the hint above the description', () => {
    expect(index.search('issue', { limit: 5 }).map((h) => h.name)).toEqual([
      'mcp__github__create_issue',
      'mcp__jira__create_ticket',
    ])
    expect(index.search('send message', { limit: 5 })[0]?.name).toBe('mcp__slack__send_message')
  })

  it('breaks ties by name in code-point order', () => {
    const ties = new Bm25Index([doc('b_tool', 'same words'), doc('a_tool', 'same words'), doc('C_tool', 'same words')])
    expect(ties.search('same', { limit: 5 }).map((h) => h.name)).toEqual(['C_tool', 'a_tool', 'b_tool'])
  })

  it('required terms must all occur; the limit holds; nothing matching gives nothing', () => {
    expect(index.search('create', { limit: 5, required: ['jira'] }).map((h) => h.name)).toEqual([
      'mcp__jira__create_ticket',
    ])
    expect(index.search('create', { limit: 1 })).toHaveLength(1)
    expect(index.search('unrelated words', { limit: 5 })).toEqual([])
    expect(new Bm25Index([]).search('x', { limit: 5 })).toEqual([])
  })

  it('gives the same scores for the same documents and query', () => {
    const again = new Bm25Index([
      doc('mcp__slack__send_message', 'Posts a message to a channel'),
      doc('mcp__github__create_issue', 'Opens an issue in a repository'),
      doc('mcp__jira__create_ticket', 'Opens a ticket', 'issue tracker bug'),
      doc('NotesWrite', 'Writes a note'),
    ])
    expect(again.search('opens issue', { limit: 5 })).toEqual(index.search('opens issue', { limit: 5 }))
  })
})
