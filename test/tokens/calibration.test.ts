import fc from 'fast-check';
import { ConfigError } from 'loopkeeper';
import { createCalibration } from 'loopkeeper/tokens';
import { describe, expect, it } from 'vitest';

describe('createCalibration', () => {
  it('adds nothing before the first report', () => {
    const calibration = createCalibration();
    expect(calibration.offset).toBe(0);
    expect(calibration.samples).toBe(0);
    expect(calibration.adjust(1_234)).toBe(1_234);
  });

  it('keeps the latest difference between reported and estimated tokens by default', () => {
    const calibration = createCalibration();
    calibration.record({ reportedPromptTokens: 10_450, estimatedTokens: 10_000 });
    expect(calibration.offset).toBe(450);
    expect(calibration.adjust(12_000)).toBe(12_450);
    // The tool list changed: the newest report replaces the old gap at once.
    calibration.record({ reportedPromptTokens: 12_900, estimatedTokens: 12_000 });
    expect(calibration.offset).toBe(900);
    expect(calibration.samples).toBe(2);
  });

  it('smooths reports when asked, starting from the first one', () => {
    const calibration = createCalibration({ smoothing: 0.5 });
    calibration.record({ reportedPromptTokens: 1_400, estimatedTokens: 1_000 });
    expect(calibration.offset).toBe(400);
    calibration.record({ reportedPromptTokens: 1_200, estimatedTokens: 1_000 });
    expect(calibration.offset).toBe(300);
  });

  it('handles an estimate above the report and never adjusts below zero', () => {
    const calibration = createCalibration();
    calibration.record({ reportedPromptTokens: 900, estimatedTokens: 1_000 });
    expect(calibration.offset).toBe(-100);
    expect(calibration.adjust(950)).toBe(850);
    expect(calibration.adjust(40)).toBe(0);
  });

  it('property: with default smoothing, adjust(estimate) reproduces the latest report', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ reported: fc.nat(1_000_000), estimated: fc.nat(1_000_000) }), {
          minLength: 1,
        }),
        (reports) => {
          const calibration = createCalibration();
          for (const { reported, estimated } of reports) {
            calibration.record({ reportedPromptTokens: reported, estimatedTokens: estimated });
          }
          const last = reports[reports.length - 1];
          expect(calibration.adjust(last?.estimated ?? 0)).toBe(last?.reported);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses bad smoothing and bad token counts with ConfigError', () => {
    expect(() => createCalibration({ smoothing: 1 })).toThrow(ConfigError);
    expect(() => createCalibration({ smoothing: Number.NaN })).toThrow(ConfigError);
    const calibration = createCalibration();
    expect(() => calibration.record({ reportedPromptTokens: -1, estimatedTokens: 5 })).toThrow(
      ConfigError,
    );
    expect(() => calibration.record({ reportedPromptTokens: 5, estimatedTokens: 1.5 })).toThrow(
      ConfigError,
    );
    expect(() => calibration.adjust(Number.POSITIVE_INFINITY)).toThrow(ConfigError);
    expect(calibration.samples).toBe(0);
  });
});
