import { describe, expect, it } from 'vitest';
import { closest } from './closest.ts';
import { checkFaults } from './faults.ts';
import { parseCliOptions, UsageError } from './options.ts';

describe('besi-fake options', () => {
  it('defaults to serving on 127.0.0.1:4010 with the default keys', () => {
    expect(parseCliOptions([])).toMatchObject({ command: 'serve', port: 4010, host: '127.0.0.1', keys: undefined, clientCompat: 'auto', faults: [], log: false, readyJson: false });
  });

  it('reads every option', () => {
    const options = parseCliOptions(['--port', '0', '--key', 'am_sk_test_a:acme', '--key', 'am_sk_live_b', '--client-compat', 'autumn-js', '--now', '2026-01-01T00:00:00Z', '--max-tenants', '3', '--log', '--ready-json', '--fault', 'AUTH-SECRET-KEY']);
    expect(options).toMatchObject({
      port: 0,
      keys: [
        { key: 'am_sk_test_a', org: 'acme' },
        { key: 'am_sk_live_b', org: 'org_fake' },
      ],
      clientCompat: 'autumn-js',
      now: Date.UTC(2026, 0, 1),
      maxTenants: 3,
      log: true,
      readyJson: true,
      faults: ['AUTH-SECRET-KEY'],
    });
  });

  it('says which option is wrong and why, never NaN', () => {
    const message = (args: string[]) => {
      try {
        parseCliOptions(args);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${args.join(' ')}`);
    };
    expect(message(['--port', 'abc'])).toBe('--port takes a whole number from 0 to 65535, not "abc"');
    expect(message(['--port', '70000'])).toMatch(/^--port takes/);
    expect(message(['--prot', '1'])).toBe("Unknown option '--prot'; did you mean --port or --host?");
    expect(message(['--ready'])).toMatch(/^Unknown option '--ready'; did you mean --ready-json or --[a-z-]+\?$/);
    expect(message(['--client-compat', 'stripe'])).toBe('--client-compat takes auto, autumn-js or none, not "stripe"');
    expect(message(['--key', 'nope'])).toBe('--key "nope": keys look like am_sk_test_… (sandbox) or am_sk_live_… (live), letters and digits after the prefix');
    expect(message(['--key', 'am_sk_test_0123456789-secret'])).toBe('--key "am_sk_test_0123…": keys look like am_sk_test_… (sandbox) or am_sk_live_… (live), letters and digits after the prefix');
    expect(message(['--key', 'am_sk_live_abc:'])).toBe('--key "am_sk_live_abc": the organisation after ":" is empty');
    expect(message(['--now', 'soon'])).toMatch(/^--now takes/);
    expect(message(['--max-tenants', '0'])).toMatch(/^--max-tenants takes/);
    expect(message(['extra'])).toMatch(/extra/);
  });

  it('--help, --version and --list-faults are commands', () => {
    expect(parseCliOptions(['--help']).command).toBe('help');
    expect(parseCliOptions(['-v']).command).toBe('version');
    expect(parseCliOptions(['--list-faults']).command).toBe('list-faults');
  });
});

describe('closest', () => {
  it('puts candidates containing the given text first, then the nearest by edit distance, case aside', () => {
    expect(closest('lic-attach', ['LIC-ATTACH-BATCH', 'LIC-RELEASE', 'LIC-ATTACH', 'PLAN-GET'])).toEqual(['LIC-ATTACH', 'LIC-ATTACH-BATCH', 'LIC-RELEASE']);
    expect(closest('AUTH-SECRT-KEY', ['AUTH-SECRET-KEY', 'AUTH-PUBLIC-KEY', 'CUS-GET'], 1)).toEqual(['AUTH-SECRET-KEY']);
    expect(closest('', ['B', 'A'], 5)).toEqual(['A', 'B']);
  });

  it('an unknown --fault is named with a few closest rule IDs, never all of them', () => {
    expect(() => checkFaults(['AUTH-SECRET-KEY'])).not.toThrow();
    let message = '';
    try {
      checkFaults(['AUTH-SECRET-KEY', 'AUTH-SECRT-KEY']);
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/^--fault "AUTH-SECRT-KEY": no fault breaks such a rule; closest: AUTH-SECRET-KEY, [A-Z-]+, [A-Z-]+ \(--list-faults lists all \d+\)$/);
  });
});
