/** The official SDKs' clients, pointed at a loopback model API (server.ts) instead of the paid one. */
import Anthropic, { type ClientOptions as AnthropicOptions } from '@anthropic-ai/sdk'
import OpenAI, { type ClientOptions as OpenAIOptions } from 'openai'
import type { ModelApi } from './server.js'

/** An Anthropic client that talks to `api` (`{ maxRetries: 0 }` for a test of a failing request). */
export const anthropicClient = (api: ModelApi, options: AnthropicOptions = {}): Anthropic =>
  new Anthropic({ ...options, baseURL: api.url, apiKey: 'test' })

/** An OpenAI client (Chat Completions and Responses) that talks to `api`. */
export const openaiClient = (api: ModelApi, options: OpenAIOptions = {}): OpenAI =>
  new OpenAI({ ...options, baseURL: api.openaiURL, apiKey: 'test' })
