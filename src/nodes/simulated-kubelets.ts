import type { Controller } from '../controllers/runtime/controller';
import { informerAndQueueProblem } from '../controllers/runtime/controller';
import type { ControllerDeps } from '../controllers/runtime/controller-deps';
import type { NodeCapacity } from './capacity';
import { NodeAgents } from './node-agents';
import { PodAgent } from './pod-agent';
import { KubeletEventSinks } from './kubelet-events';
import type { SimulatedNode } from './simulated-node';

/**
 * The kubelets of --simulated-nodes, in the server: their nodes and leases (NodeAgents) and the
 * pods bound to them (PodAgent). Pods on any other node are left to their own kubelets.
 */
export class SimulatedKubelets implements Controller {
  readonly name = 'simulated-kubelets';
  private readonly agents: NodeAgents;
  private readonly pods: PodAgent;

  constructor(deps: ControllerDeps, nodes: SimulatedNode[], capacity: NodeCapacity, kubeletVersion: string, runDurationMs: number) {
    const events = new KubeletEventSinks(deps);
    this.agents = new NodeAgents(deps, nodes, capacity, kubeletVersion, events, (name) => this.pods.resume(name));
    this.pods = new PodAgent(deps, this.agents, runDurationMs, events);
  }

  async start(): Promise<void> {
    await this.pods.start();
    await this.agents.start();
  }

  stop(): void {
    this.agents.stop();
    this.pods.stop();
  }

  problem(): string | null {
    return informerAndQueueProblem([this.agents.informer, this.pods.informer], null);
  }
}
