import { placeOf } from "../conversation/place-of.ts";
import { decodeConversationKey } from "../conversation/ref.ts";
import type { Identities } from "./identities.ts";
import type { LearningScope } from "./learnings-config.ts";

/** Where a turn is and who asked: the three subjects its learnings can be about. */
export interface TurnSubjects {
  readonly user: string;
  readonly conversation: string;
  readonly place: string;
}

/** The subjects of a turn; the user comes from the run, linked across platforms by `identities`. */
export function subjectsOf(conversationKey: string, userId: string, identities: Identities): TurnSubjects {
  const { platform } = decodeConversationKey(conversationKey);
  return {
    user: identities.personOf(platform, userId),
    conversation: conversationKey,
    place: placeOf(conversationKey),
  };
}

/** The store key of one subject's learnings. */
export function subjectKey(scope: LearningScope, subjects: TurnSubjects): string {
  return `${scope}:${subjects[scope]}`;
}
