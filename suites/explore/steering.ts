/**
 * Steering a run toward what it has not reached (issue 25), rather than by fixed weights alone:
 *
 * - Swarm testing (Groce et al., "Swarm testing", ISSTA 2012): each program enables a random half of
 *   the step commands beyond its focus's, so programs differ in what they do, not only in order; a
 *   command that would crowd out another (a read that always applies) is absent from half of them.
 * - Goals: each program's prelude also holds commands that reach the dimensions the run has
 *   reached least so far, relative to the share each must reach (every command declares what it
 *   reaches, CommandSpec `reaches`): every dimension below its share of the programs so far, within
 *   bounds; when none is, the least reached one.
 *
 * The goals are drawn when fast-check generates a program, which it does just before running it,
 * so each program sees the coverage of those before it. A shrunk program keeps the goals it had.
 */
import fc from 'fast-check';
import { commandArbitrary, DIMENSIONS, type Abilities, type CommandSpec, type Dimension, type StepCommand } from './command.ts';

/** The share of programs every dimension must reach (issue 25: at least 5%); steering aims a little above it. */
export const DIMENSION_SHARE = 0.05;
const AIMED_SHARE = 0.06;
const MIN_GOALS = 1;
const MAX_GOALS = 5;

/** The dimensions a run reached in fewer than their share of its programs, with their counts. */
export function belowShare(coverage: Readonly<Record<Dimension, number>>, programs: number): string[] {
  return (Object.keys(DIMENSIONS) as Dimension[]).filter((d) => coverage[d] < DIMENSION_SHARE * programs).map((d) => `${d} ${coverage[d]}`);
}

/** The commands that reach each dimension on a target with these abilities (their flags and needs met). */
export function reachersOf(commands: readonly CommandSpec<unknown>[], can: Abilities): Map<Dimension, CommandSpec<unknown>[]> {
  const out = new Map<Dimension, CommandSpec<unknown>[]>();
  for (const command of commands) {
    if (command.needs !== undefined && !command.needs(can)) continue;
    for (const dimension of command.reaches ?? []) out.set(dimension, [...(out.get(dimension) ?? []), command]);
  }
  return out;
}

export class Steering {
  readonly #reachers: Map<Dimension, CommandSpec<unknown>[]>;
  readonly #coverage: Readonly<Record<Dimension, number>>;
  readonly #programs: () => number;

  /** `coverage` and `programs` are the run's own tallies, read as they grow. */
  constructor(reachers: Map<Dimension, CommandSpec<unknown>[]>, coverage: Readonly<Record<Dimension, number>>, programs: () => number) {
    this.#reachers = reachers;
    this.#coverage = coverage;
    this.#programs = programs;
  }

  /** The dimensions some command of the target reaches on purpose. */
  get steerable(): readonly Dimension[] {
    return (Object.keys(DIMENSIONS) as Dimension[]).filter((d) => this.#reachers.has(d));
  }

  /**
   * The dimensions the next program aims at: those below their share of the programs so far, this
   * one included (and every one reached at least once), the furthest below first. A run's length is
   * not known in advance (a conformance run explores in the time its scenarios leave), so the share
   * is kept at every program, not at the end.
   */
  goals(): Dimension[] {
    const programs = this.#programs();
    const need = Math.max(1, Math.ceil(AIMED_SHARE * (programs + 1)));
    const deficit = (d: Dimension) => need - this.#coverage[d];
    const ranked = [...this.steerable].sort((a, b) => deficit(b) - deficit(a) || a.localeCompare(b));
    const behind = ranked.filter((d) => deficit(d) > 0).length;
    const count = Math.min(MAX_GOALS, Math.max(MIN_GOALS, behind));
    // Equally owed dimensions take turns, with the program's number.
    const top = ranked.filter((d) => deficit(d) === deficit(ranked[0]!));
    const turn = programs % Math.max(1, top.length);
    return [...top.slice(turn), ...top.slice(0, turn), ...ranked.slice(top.length)].slice(0, count);
  }

  /** The goal commands of the next program: one reacher of each goal (any of them, when several reach it), its arguments random. */
  goalsArbitrary(): fc.Arbitrary<StepCommand<unknown>[]> {
    return fc.constant(null).chain(() => {
      const reachers = this.goals().map((d) => this.#reachers.get(d)!);
      // A goal-only command (weight 0) is as likely as any other reacher of its goal.
      return reachers.length === 0 ? fc.constant([]) : fc.tuple(...reachers.map((specs) => commandArbitrary(specs.map((spec) => ({ ...spec, weight: Math.max(1, spec.weight) })))));
    });
  }
}

/**
 * Swarm testing: the step commands of one program, those of its focus always, each other one with
 * even odds (never none: a program with no other kind keeps them all).
 */
export function swarmArbitrary(commands: readonly CommandSpec<unknown>[], focused: (command: CommandSpec<unknown>) => boolean): fc.Arbitrary<CommandSpec<unknown>[]> {
  return fc.noShrink(fc.array(fc.boolean(), { minLength: commands.length, maxLength: commands.length })).map((mask) => {
    const kept = commands.filter((command, i) => focused(command) || mask[i]);
    return kept.length > 0 ? kept : [...commands];
  });
}
