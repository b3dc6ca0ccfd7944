/** This toolkernel's version, as package.json says (a test keeps the two equal). */
export const TOOLKERNEL_VERSION = '0.2.0'
