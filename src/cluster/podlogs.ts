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
  container: string;
  lines: LogLine[];
  /** Made by the first follower: most logs are never followed. */
  followers: Set<Follower> | null;
}

export class PodLogBook {
  /**
   * By pod key: its containers' logs. A pod has a few containers, so a list, not a Map per pod
   * (a Map and a Set per pod were ~0.4 KB of each of 100,000 pods in bench:apiserver).
   */
  readonly #pods = new Map<string, ContainerLog[]>();

  #log(podKey: string, container: string): ContainerLog {
    let containers = this.#pods.get(podKey);
    if (!containers) {
      containers = [];
      this.#pods.set(podKey, containers);
    }
    let log = containers.find((known) => known.container === container);
    if (!log) {
      log = { container, lines: [], followers: null };
      containers.push(log);
    }
    return log;
  }

  /** A line the container wrote at `at`. */
  append(podKey: string, container: string, at: number, text: string): void {
    const log = this.#log(podKey, container);
    const line = { at, text };
    // Most containers write one line: a first push would make room for 17.
    if (log.lines.length === 0) log.lines = [line];
    else log.lines.push(line);
    if (log.lines.length > LOG_LINES) log.lines.splice(0, log.lines.length - LOG_LINES);
    if (log.followers) for (const follower of log.followers) follower(line);
  }

  /** The lines kept, oldest first. */
  lines(podKey: string, container: string): readonly LogLine[] {
    return this.#pods.get(podKey)?.find((log) => log.container === container)?.lines ?? [];
  }

  /** Calls `follower` with each new line, and with null when the pod goes; returns the unfollow. */
  follow(podKey: string, container: string, follower: Follower): () => void {
    const log = this.#log(podKey, container);
    log.followers ??= new Set();
    log.followers.add(follower);
    return () => {
      log.followers?.delete(follower);
    };
  }

  /** The pod is gone: its logs go, and its followers end. */
  forget(podKey: string): void {
    const containers = this.#pods.get(podKey);
    if (!containers) return;
    this.#pods.delete(podKey);
    for (const log of containers) {
      if (log.followers) for (const follower of log.followers) follower(null);
    }
  }
}
