import { Http, type HttpOptions } from './http.js';
import { AuthApi } from './auth.js';
import { EntriesApi } from './entries.js';
import { TransfersApi } from './transfers.js';
import { SharingApi } from './sharing.js';
import { LinksApi } from './links.js';
import { ListsApi } from './lists.js';

/** Everything the engine, the command line and the window do to the service, for one account. */
export class DriveClient {
  readonly http: Http;
  readonly auth: AuthApi;
  readonly entries: EntriesApi;
  readonly transfers: TransfersApi;
  readonly sharing: SharingApi;
  readonly links: LinksApi;
  readonly lists: ListsApi;

  constructor(options: HttpOptions) {
    this.http = new Http(options);
    this.auth = new AuthApi(this.http);
    this.entries = new EntriesApi(this.http);
    this.transfers = new TransfersApi(this.http);
    this.sharing = new SharingApi(this.http);
    this.links = new LinksApi(this.http);
    this.lists = new ListsApi(this.http);
  }
}
