// `runConditionalActions(client, catalog, presnapshot)`: "if condition then action [verify
// postcondition]" over one captured snapshot, with upstream's rules (`conditional-action.ts`): an entry
// whose postcondition already holds is skipped, the applicable ones run in catalog order, a declared
// postcondition is verified on a re-capture of the same selectors, and every failure — a predicate or
// action that throws, a postcondition still false — is a `ConditionalActionFailedError` naming the entry.
import { reCaptureViewHierarchy } from "./view-hierarchy.mjs";

export class ConditionalActionFailedError extends Error {
  constructor(conditionalActionId, message, cause = null) {
    super(message);
    this.name = "ConditionalActionFailedError";
    this.conditionalActionId = conditionalActionId;
    this.cause = cause;
  }
}

const describe = (entry) => (entry.description ? `conditional "${entry.id}" (${entry.description})`
  : `conditional "${entry.id}"`);
const reason = (error) => (error instanceof Error ? error.message : String(error));

function check(entry, which, snapshot) {
  const predicate = entry[which];
  if (!predicate) return false;
  try {
    return Boolean(predicate(snapshot));
  } catch (error) {
    throw new ConditionalActionFailedError(entry.id, `${which} predicate threw for ${describe(entry)}: ` +
      reason(error), error);
  }
}

export async function runConditionalActions(client, conditionalActions, presnapshot) {
  if (conditionalActions.length === 0) return { handled: [] };
  if (presnapshot === undefined) {
    throw new Error("runConditionalActions: presnapshot is required. Build one with " +
      "`await captureViewHierarchy(client, [...selectors])` from the selectors your condition and " +
      "postcondition predicates probe, and pass it in.");
  }
  const applicable = conditionalActions.filter((entry) =>
    !check(entry, "postcondition", presnapshot) && check(entry, "condition", presnapshot));
  const handled = [];
  for (const entry of applicable) {
    try {
      await entry.action();
    } catch (error) {
      if (error instanceof ConditionalActionFailedError) throw error;
      throw new ConditionalActionFailedError(entry.id, `action threw for ${describe(entry)}: ${reason(error)}`,
        error);
    }
    if (entry.postcondition) {
      const after = await reCaptureViewHierarchy(client, presnapshot);
      if (!check(entry, "postcondition", after)) {
        throw new ConditionalActionFailedError(entry.id,
          `postcondition not satisfied after action for ${describe(entry)}`);
      }
    }
    handled.push(entry.id);
  }
  return { handled };
}
