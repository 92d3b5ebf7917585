// A job's clock moved on, for the fault campaign (scripts/chaos.ts): loaded into a job's Node.js
// processes with NODE_OPTIONS="--import <this file>", it shifts `Date.now()` and `new Date()` by
// NARUTO_TEST_CLOCK_OFFSET_MS. The sweep recovers a lost event only after a wait (an item's
// timeout, quiet minutes, a command left unanswered for two minutes); on GitHub the schedule
// brings that time, here the campaign moves the jobs' clock instead of waiting. naruto itself
// has no such setting: the Action reads the clock only through `new Date()` in its entry point.
const offset = Number(process.env.NARUTO_TEST_CLOCK_OFFSET_MS ?? "0");

if (Number.isFinite(offset) && offset !== 0) {
  const RealDate = Date;
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
}
