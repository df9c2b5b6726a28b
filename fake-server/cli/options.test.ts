import { describe, expect, it } from 'vitest';
import { parseCliOptions, UsageError } from './options.ts';

describe('besi-fake options', () => {
  it('defaults to serving on 127.0.0.1:4010 with the default keys', () => {
    expect(parseCliOptions([])).toMatchObject({ command: 'serve', port: 4010, host: '127.0.0.1', keys: undefined, faults: [], log: false, readyJson: false });
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
    expect(message(['--prot', '1'])).toBe("Unknown option '--prot'");
    expect(message(['--client-compat', 'stripe'])).toBe('--client-compat takes autumn-js, not "stripe"');
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
