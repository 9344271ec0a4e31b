import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { ScheduleDef } from '../routes.ts';
import { lambdaContext } from './gateway.ts';

/**
 * The schedules of the route table, run locally: each once at start-up and then every `everyMinutes`
 * (or the given interval), never two runs of one schedule at once. The handler receives the event an
 * EventBridge schedule sends. A failed run is reported, never thrown out of the timer.
 */
export type ScheduleHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface LocalSchedulesOptions {
  schedules: Readonly<Record<string, ScheduleDef>>;
  loadHandler(file: string): Promise<ScheduleHandler>;
  /** Overrides every schedule's `everyMinutes` (tests set a huge one and call `runAll`). */
  intervalMs?: number;
  /** Wraps each run (the local runtime enforces the schedule's grants there). */
  invoke?<T>(name: string, def: ScheduleDef, call: () => Promise<T>): Promise<T>;
  onError(name: string, error: unknown): void;
}

interface ScheduleState {
  name: string;
  def: ScheduleDef;
  running?: Promise<void>;
  /** A run asked for while one was under way: starts when it ends. */
  next?: Promise<void>;
}

export class LocalSchedules {
  private readonly options: LocalSchedulesOptions;
  private readonly states: ScheduleState[];
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(options: LocalSchedulesOptions) {
    this.options = options;
    this.states = Object.entries(options.schedules).map(([name, def]) => ({ name, def }));
  }

  /** Runs every schedule once, then starts their timers. */
  async start(): Promise<void> {
    await this.runAll();
    if (this.stopped) return;
    for (const state of this.states) {
      const interval = this.options.intervalMs ?? state.def.everyMinutes * 60_000;
      // A tick while the previous run is still going is skipped, as one run at a time is the rule.
      const timer = setInterval(() => {
        if (!state.running) void this.run(state);
      }, interval);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /**
   * Runs every schedule now and resolves when all are done. A schedule already running runs again
   * once that run ends, so the run sees everything done before this call.
   */
  async runAll(): Promise<void> {
    await Promise.all(this.states.map((state) => this.runSoon(state)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await Promise.all(this.states.map((state) => state.next ?? state.running));
  }

  private runSoon(state: ScheduleState): Promise<void> {
    if (!state.running) return this.run(state);
    state.next ??= state.running.then(() => {
      state.next = undefined;
      return this.run(state);
    });
    return state.next;
  }

  private run(state: ScheduleState): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const { name, def } = state;
    const call = async () => {
      const handler = await this.options.loadHandler(def.handler);
      await handler(scheduledEvent(name), lambdaContext(def.handler, def));
    };
    // Started on the next tick, so `running` is set before the run can end.
    const run = Promise.resolve().then(async () => {
      try {
        await (this.options.invoke ? this.options.invoke(name, def, call) : call());
      } catch (error) {
        this.options.onError(name, error);
      } finally {
        state.running = undefined;
      }
    });
    state.running = run;
    return run;
  }
}

/** The event an EventBridge schedule sends its target. */
function scheduledEvent(name: string): ScheduledEvent {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/promptops-local-${name}`],
    detail: {},
  };
}
