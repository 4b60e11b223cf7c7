/** The roles, types and QA verdicts a request can have (file.ts). */
export const REQUEST_ROLES = ["prd", "ui", "rd", "qa", "sc", "txt"] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];

export const REQUEST_TYPES = ["feature", "bugfix", "refactor", "config", "docs", "chore"] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

/** How a QA request's `verdict-issued` state is qualified. */
export const QA_VERDICTS = ["pass", "return-to-rd", "blocked"] as const;
export type QaVerdict = (typeof QA_VERDICTS)[number];
