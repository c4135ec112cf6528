import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // the project's own layout: no default glob names it
    include: ['checks/**/*.check.ts'],
    coverage: { include: ['calc.js'] },
  },
})
