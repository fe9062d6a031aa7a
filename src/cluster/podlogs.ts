// The containers' logs of the embedded cluster's pods, as the kubelet keeps them for
// `kubectl logs`: each running container's lines (its app model's start-up line, and in
// `horizon up` an access line per request it answered), the last LOG_LINES kept per container,
// and followers that get each new line until the pod goes. Pure: times are passed in.

/** Lines kept per container (older ones are dropped, as a rotated log file's). */
export const LOG_LINES = 1000;

export interface LogLine {
  /** Epoch ms. */
  at: number;
  text: string;
}

type Follower = (line: LogLine | null) => void;

interface ContainerLog {
  lines: LogLine[];
  followers: Set<Follower>;
}

export class PodLogBook {
  /** By pod key, then container name. */
  readonly #pods = new Map<string, Map<string, ContainerLog>>();

  #log(podKey: string, container: string): ContainerLog {
    let containers = this.#pods.get(podKey);
    if (!containers) {
      containers = new Map();
      this.#pods.set(podKey, containers);
    }
    let log = containers.get(container);
    if (!log) {
      log = { lines: [], followers: new Set() };
      containers.set(container, log);
    }
    return log;
  }

  /** A line the container wrote at `at`. */
  append(podKey: string, container: string, at: number, text: string): void {
    const log = this.#log(podKey, container);
    const line = { at, text };
    log.lines.push(line);
    if (log.lines.length > LOG_LINES) log.lines.splice(0, log.lines.length - LOG_LINES);
    for (const follower of log.followers) follower(line);
  }

  /** The lines kept, oldest first. */
  lines(podKey: string, container: string): readonly LogLine[] {
    return this.#pods.get(podKey)?.get(container)?.lines ?? [];
  }

  /** Calls `follower` with each new line, and with null when the pod goes; returns the unfollow. */
  follow(podKey: string, container: string, follower: Follower): () => void {
    const log = this.#log(podKey, container);
    log.followers.add(follower);
    return () => {
      log.followers.delete(follower);
    };
  }

  /** The pod is gone: its logs go, and its followers end. */
  forget(podKey: string): void {
    const containers = this.#pods.get(podKey);
    if (!containers) return;
    this.#pods.delete(podKey);
    for (const log of containers.values()) for (const follower of log.followers) follower(null);
  }
}
