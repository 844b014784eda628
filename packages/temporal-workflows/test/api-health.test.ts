// When a bulk job pauses because the API is unwell (review N4, N2): a rate of server errors over enough
// recent answers, not a count a window's own successes reset; windows in a row that reach nothing. Pure.
import {
  countAnswers,
  MIN_ANSWERS,
  serverErrorPause,
  unreachablePause,
  UNREACHABLE_WINDOWS,
  type AnswerTallies,
} from '../src/workflows/api-health.ts';

const windows = (...w: [number, number][]) =>
  w.reduce<AnswerTallies>((t, [answers, errors]) => countAnswers(t, answers, errors), []);

describe('server errors', () => {
  it('a window of 150 answers with 60 server errors (40 %) does not pause', () => {
    expect(serverErrorPause(windows([150, 60]))).toBeUndefined();
  });

  it('250 OK and 50 × 503 in one window (17 %) does not pause, however often it happens', () => {
    expect(serverErrorPause(windows([300, 50], [300, 50], [300, 50]))).toBeUndefined();
  });

  it('every answer a server error pauses once there are enough answers, not before', () => {
    expect(serverErrorPause(windows([20, 20], [20, 20]))).toBeUndefined();
    expect(serverErrorPause(windows([20, 20], [20, 20], [20, 20]))).toMatch(
      /60 of its last 60 .*server errors/,
    );
  });

  it('the rate is over the most recent answers: a healthy past does not hide a failing present', () => {
    expect(serverErrorPause(windows([1000, 0], [60, 60]))).toMatch(/server errors/);
    expect(serverErrorPause(windows([60, 60], [60, 0]))).toBeUndefined();
  });

  it('keeps only the fewest recent windows that hold enough answers', () => {
    const t = windows(...Array.from({ length: 200 }, () => [1, 1] as [number, number]));
    expect(t).toHaveLength(MIN_ANSWERS);
  });
});

describe('a host that cannot be reached', () => {
  it('pauses after windows in a row with nothing answered, with the reason', () => {
    const reason = 'cannot reach http://127.0.0.1:9: ECONNREFUSED';
    expect(unreachablePause(UNREACHABLE_WINDOWS - 1, reason)).toBeUndefined();
    expect(unreachablePause(UNREACHABLE_WINDOWS, reason)).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:9: ECONNREFUSED/,
    );
  });
});
