/** The remembered mailing lists live in the shared state, so `drivesync lists` reads and adds to the same ones. */
export { countSubscribed, forgetList, listsInOrder, loadSavedLists, rememberList, savedListsFile } from '../../state/saved-lists.js';
