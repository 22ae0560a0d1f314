// A configuration problem names its variable and the rule it breaks. loadConfig gathers every problem before it
// fails, so one start-up failure lists every bad variable.

export type Env = Record<string, string | undefined>;

export interface ConfigProblem {
  variable: string;
  rule: string;
}

export class ConfigError extends Error {
  /** Every problem found, this one's first: one a line in the message. */
  readonly problems: readonly ConfigProblem[];

  constructor(
    readonly variable: string,
    rule: string,
    others: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ variable, rule }, ...others];
    super(problems.map((p) => `${p.variable}: ${p.rule}`).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** The problems found so far; each rule that runs after the schema is checked through it. */
export class Problems {
  private readonly found: ConfigProblem[] = [];

  add(problems: readonly ConfigProblem[]): void {
    for (const p of problems) if (!this.has(p.variable)) this.found.push(p);
  }

  has(variable: string): boolean {
    return this.found.some((p) => p.variable === variable);
  }

  /**
   * Runs a rule over the variables it reads. A rule that reads a variable already found bad is not run (it would
   * only repeat or guess); a ConfigError it throws is noted. Either way `fallback` stands in: throwIfAny ends the load.
   */
  check<T>(reads: readonly string[], rule: () => T, fallback: T): T {
    if (reads.some((v) => this.has(v))) return fallback;
    try {
      return rule();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.add(err.problems);
      return fallback;
    }
  }

  /** One ConfigError listing every problem, in the order of `variables` (the schema's); others after them. */
  throwIfAny(variables: readonly string[] = []): void {
    const rank = (p: ConfigProblem) => (variables.includes(p.variable) ? variables.indexOf(p.variable) : variables.length);
    const [first, ...others] = [...this.found].sort((a, b) => rank(a) - rank(b));
    if (first) throw new ConfigError(first.variable, first.rule, others);
  }
}
