export * from './clock.ts';
export { FakeClock, settle } from './fake-clock.ts';
