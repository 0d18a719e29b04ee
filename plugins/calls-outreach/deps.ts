import { callPlacingRef, type CallPlacing } from '../calls';
import { contactDirectoryRef, type ContactDirectory } from '../contacts';
import { outreachTasksRef, type OutreachTasks } from '../outreach';

/** The services the make_call executor names (its `deps`), which its consumers use too. */
export const makeCallDeps = {
  placing: callPlacingRef,
  contacts: contactDirectoryRef,
  tasks: outreachTasksRef,
};

export interface MakeCallDeps {
  /** Places calls, says whether an agent can call, and where the provider calls back (PUBLIC_BASE_URL). */
  placing: CallPlacing;
  contacts: ContactDirectory;
  tasks: OutreachTasks;
}
