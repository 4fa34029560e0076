/**
 * The support bot's document set: help pages of "Nimbus Drive", a fictional
 * cloud-storage product (fictional so every expected answer is exact and
 * nobody's real pricing is misquoted). Order matters for one failure: a
 * retriever that scores every document 0 returns the first k of this list.
 */
export interface Doc {
  id: string;
  title: string;
  text: string;
}

export const NIMBUS_DOCS: Doc[] = [
  {
    id: 'company-history',
    title: 'About Nimbus',
    text: 'Nimbus was founded in 2011 in Lisbon by three former network engineers. The company has about 400 employees and offices in Lisbon, Toronto and Osaka. Nimbus Drive reached one million users in 2016.',
  },
  {
    id: 'mobile-app',
    title: 'The mobile app',
    text: 'The Nimbus mobile app runs on Android 10 and iOS 15 or later. Photos can be backed up automatically over Wi-Fi. The app keeps up to 30 recent files available offline.',
  },
  {
    id: 'sharing',
    title: 'Sharing files and folders',
    text: 'Shared links expire after 30 days by default. Owners can set a password on a shared link. A shared folder can have at most 100 members.',
  },
  {
    id: 'plans-pricing',
    title: 'Plans and pricing',
    text: 'Nimbus Drive offers three plans. The Free plan includes 5 GB of storage. The Pro plan costs $9 per month and includes 2 TB of storage. The Team plan costs $15 per user per month and includes 5 TB of pooled storage per user.',
  },
  {
    id: 'annual-billing',
    title: 'Annual billing',
    text: 'With annual billing a plan is charged for 10 months per year, so two months are free. Annual billing is available for the Pro plan and the Team plan. Prices are in US dollars.',
  },
  {
    id: 'file-size-limits',
    title: 'File size limits',
    text: 'The maximum size of a single file is 2 GB on the Free plan. The maximum file size on the Pro plan is 50 GB. The maximum file size on the Team plan is 250 GB.',
  },
  {
    id: 'sync-troubleshooting',
    title: 'Troubleshooting sync',
    text: 'If sync is stuck, stop the sync process and start it again with the command nimbus sync --restart. A sync that stays paused usually means the disk is full. Sync logs are written to the folder ~/.nimbus/logs.',
  },
  {
    id: 'regions',
    title: 'Data regions',
    text: 'Nimbus stores customer data in three regions: Frankfurt, Oregon and Singapore. Team plan administrators choose the region when the team is created. Data never leaves the chosen region.',
  },
  {
    id: 'version-history',
    title: 'Version history',
    text: 'The Free plan keeps 30 days of version history. The Pro plan and the Team plan keep 180 days of version history. Deleted files stay in the trash for 30 days.',
  },
  {
    id: 'security',
    title: 'Security',
    text: 'Files are encrypted at rest with AES-256 and in transit with TLS 1.3. Two-factor authentication can be required for every member of a team. Nimbus publishes a yearly security audit.',
  },
  {
    id: 'currencies',
    title: 'Paying in other currencies',
    text: 'Invoices are issued in US dollars. Customers who pay in euros are charged at the exchange rate of the billing day, looked up from the rates service.',
  },
  {
    id: 'api-limits',
    title: 'API rate limits',
    text: 'The Nimbus API allows 600 requests per minute for each access token. Requests over the limit receive status 429 and should be retried after the time in the Retry-After header.',
  },
];
