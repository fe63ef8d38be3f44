import { z } from "zod";
import { sentText } from "./form-fields";

/**
 * A cast of 月票 or 推荐票 (decision 173): castVotes checks the kind and the count with its
 * own messages; `redirectTo` is where the page came from (a work page or chapter), checked by the route.
 */
export const voteFormSchema = z.object({ kind: sentText, count: sentText, redirectTo: sentText });

/** The operator's vote settings (/admin/settings/votes); saveVoteSettings checks them. */
export const voteSettingsFormSchema = z.object({ monthlyVoteCredits: sentText, minAccountDays: sentText, levels: sentText });
