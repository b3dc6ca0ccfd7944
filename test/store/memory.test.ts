import { createMemoryEventStore } from '../../src/adapters/memory-event.store.js'
import { storeContract } from './contract.js'

storeContract(
  'memory',
  () => Promise.resolve({ store: createMemoryEventStore() }),
  () => Promise.resolve(),
)
