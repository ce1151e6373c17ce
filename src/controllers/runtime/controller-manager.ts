import type { HealthCheck } from '../../http/app';
import type { Controller } from './controller';
import type { ControllerLog } from './informer';
import type { LeaderElector } from './leader-election';
import type { SharedInformers } from './shared-informers';

/** IsControllerEnabled (k8s.io/controller-manager): the first explicit "name" or "-name" decides, else "*" enables. */
export function controllerEnabled(name: string, controllers: string[]): boolean {
  for (const c of controllers) {
    if (c === name) return true;
    if (c === `-${name}`) return false;
  }
  return controllers.includes('*');
}

interface Entry {
  controller: Controller;
  leaderOnly: boolean;
  running: boolean;
}

/**
 * Runs the in-process controllers: those every replica needs (serving CRDs, its identity) at once,
 * the others (namespace deletion, garbage collection, CRD status) only while this replica holds the
 * leader lease, as kube-controller-manager's controllers run under leader election. Without an
 * elector every controller runs here.
 */
export class ControllerManager {
  private readonly entries: Entry[] = [];
  private elector: LeaderElector | null = null;
  private stopped = false;

  constructor(
    private readonly log: ControllerLog,
    /** kube-controller-manager's --controllers: which leader-only controllers run (every replica's always do). */
    private readonly enabled: string[] = ['*'],
    /** The controllers' shared informers: each starts with the first controller reading it; all stop with the manager. */
    private readonly informers: SharedInformers | null = null,
  ) {}

  /** Adds a controller; call before `start()`. A leader-only controller --controllers turns off is left out. */
  add(controller: Controller, opts: { leaderOnly: boolean }): void {
    if (opts.leaderOnly && !controllerEnabled(controller.name, this.enabled)) {
      this.log(`controller ${controller.name} is disabled by --controllers`);
      return;
    }
    this.entries.push({ controller, leaderOnly: opts.leaderOnly, running: false });
  }

  /**
   * Starts what every replica runs, one after the other (resolving once their informers have
   * synced), then campaigns for leadership (or, with no elector, starts the rest at once).
   */
  async start(elector: LeaderElector | null): Promise<void> {
    this.elector = elector;
    for (const entry of this.entries) if (!entry.leaderOnly) await this.startEntry(entry);
    // The leader's controllers never hold up the start: they sync in the background.
    if (elector) elector.run();
    else this.leadership.startedLeading();
  }

  /** The elector's callbacks: the leader's controllers start and stop with leadership. */
  readonly leadership = {
    startedLeading: (): void => {
      if (this.stopped) return;
      for (const entry of this.entries) if (entry.leaderOnly) void this.startEntry(entry);
    },
    stoppedLeading: (): void => {
      for (const entry of this.entries) if (entry.leaderOnly) this.stopEntry(entry);
    },
  };

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.entries) if (entry.leaderOnly) this.stopEntry(entry);
    await this.elector?.stop();
    for (const entry of this.entries) this.stopEntry(entry);
    this.informers?.stop();
  }

  /**
   * Health checks, as kube-apiserver's post-start hooks and kube-controller-manager's controller
   * checks: one per controller (a controller this replica does not run while it is not the leader
   * passes), and `leaderElection`.
   */
  healthChecks(): HealthCheck[] {
    const checks: HealthCheck[] = this.entries.map((entry) => ({
      name: entry.controller.name,
      check: async () => {
        if (!entry.running) {
          if (entry.leaderOnly && !this.isLeader) return;
          throw new Error(`${entry.controller.name} is not running`);
        }
        const problem = entry.controller.problem();
        if (problem) throw new Error(problem);
      },
    }));
    if (this.elector) {
      const elector = this.elector;
      checks.push({
        name: 'leaderElection',
        check: async () => {
          const problem = elector.problem();
          if (problem) throw new Error(problem);
        },
      });
    }
    return checks;
  }

  private async startEntry(entry: Entry): Promise<void> {
    if (entry.running) return;
    entry.running = true;
    try {
      await entry.controller.start();
    } catch (err) {
      // start() only fails on a bug: its informers retry on their own.
      this.log(`${entry.controller.name} failed to start`, err);
      entry.running = false;
    }
  }

  private stopEntry(entry: Entry): void {
    if (!entry.running) return;
    entry.running = false;
    entry.controller.stop();
  }
}
