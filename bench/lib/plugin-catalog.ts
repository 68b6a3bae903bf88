// A catalog of plausible plugin tools across many domains, for the tool_search figures: the kind
// of tools people install from plugin folders and MCP servers (issue trackers, chat, mail,
// calendars, databases, clouds, monitoring, payments, media, documents, developer utilities).
// Each line: `id | description | parameters`, parameters as `name[?]:type:description` joined
// by ";", where type is string, number, integer, boolean, string[] or one of a|b|c (an enum).
// Like a Lathe plugin's, each tool's description is followed by a TOOL.md (when to use it,
// when not, examples), generated here from the line and the tool's siblings.

const CATALOG = `
github_create_issue | Create a new issue in a GitHub repository. Use it to report a bug or request a feature; the issue is opened under the authenticated user. Returns the issue number and URL. | repo:string:Repository as owner/name; title:string:Issue title; body?:string:Markdown body of the issue; labels?:string[]:Labels to apply; assignees?:string[]:Logins to assign
github_list_issues | List issues of a GitHub repository, filtered by state, label or assignee, newest first. Pull requests are excluded. | repo:string:Repository as owner/name; state?:open|closed|all:Which issues to list; labels?:string[]:Only issues with all these labels; per_page?:integer:Results per page, at most 100
github_comment_on_issue | Add a comment to an existing GitHub issue or pull request. | repo:string:Repository as owner/name; number:integer:Issue or pull request number; body:string:Markdown comment
github_close_issue | Close a GitHub issue, optionally as not planned, with a closing comment. | repo:string:Repository as owner/name; number:integer:Issue number; reason?:completed|not_planned:Why it is closed; comment?:string:Comment to add before closing
github_create_pull_request | Open a pull request on GitHub from a head branch into a base branch. | repo:string:Repository as owner/name; head:string:Branch with the changes; base:string:Branch to merge into, e.g. main; title:string:Pull request title; body?:string:Description; draft?:boolean:Open as a draft
github_list_pull_requests | List the pull requests of a GitHub repository with their state, author, branches and review status. | repo:string:Repository as owner/name; state?:open|closed|all:Which pull requests; base?:string:Only those targeting this branch
github_merge_pull_request | Merge a GitHub pull request using merge, squash or rebase once its checks pass. | repo:string:Repository as owner/name; number:integer:Pull request number; method?:merge|squash|rebase:Merge method; commit_title?:string:Title of the merge commit
github_get_file_contents | Read a file or list a directory from a GitHub repository at a branch, tag or commit, without cloning it. | repo:string:Repository as owner/name; path:string:Path inside the repository; ref?:string:Branch, tag or commit SHA
github_search_code | Search code across GitHub repositories with GitHub's code search syntax (e.g. "repo:owner/name language:go Foo"). Returns matching files with line fragments. | query:string:Code search query; per_page?:integer:Results per page
github_list_workflow_runs | List recent GitHub Actions workflow runs of a repository with their status, conclusion, branch and duration. | repo:string:Repository as owner/name; workflow?:string:Workflow file name, e.g. ci.yml; branch?:string:Only runs on this branch; status?:queued|in_progress|completed:Run status
github_rerun_workflow | Re-run a failed GitHub Actions workflow run, or only its failed jobs. | repo:string:Repository as owner/name; run_id:integer:Workflow run id; failed_only?:boolean:Re-run only the failed jobs
gitlab_create_merge_request | Create a merge request in a GitLab project from a source branch to a target branch. | project:string:Project path or numeric id; source_branch:string:Branch with the changes; target_branch:string:Branch to merge into; title:string:Merge request title; description?:string:Markdown description
gitlab_list_pipelines | List CI/CD pipelines of a GitLab project with status, ref and the user who triggered them. | project:string:Project path or numeric id; ref?:string:Branch or tag; status?:running|pending|success|failed|canceled:Pipeline status
gitlab_retry_pipeline | Retry the failed jobs of a GitLab CI pipeline. | project:string:Project path or numeric id; pipeline_id:integer:Pipeline id
gitlab_list_merge_requests | List merge requests in a GitLab project, filtered by state, author or reviewer. | project:string:Project path or numeric id; state?:opened|closed|merged|all:State; author?:string:Author username
jira_create_ticket | Create a Jira issue (bug, task or story) in a project with a summary, description and priority. | project:string:Project key, e.g. OPS; summary:string:One-line summary; issue_type?:Bug|Task|Story|Epic:Issue type; description?:string:Description in Jira markup; priority?:Highest|High|Medium|Low|Lowest:Priority
jira_search_issues | Search Jira issues with JQL, e.g. "project = OPS AND status = 'In Progress'". Returns keys, summaries, statuses and assignees. | jql:string:JQL query; max_results?:integer:At most this many issues; fields?:string[]:Fields to return
jira_transition_issue | Move a Jira issue to another workflow status, such as In Progress or Done. | key:string:Issue key, e.g. OPS-42; status:string:Target status name; comment?:string:Comment to add with the transition
jira_add_comment | Add a comment to a Jira issue. | key:string:Issue key; body:string:Comment text
jira_assign_issue | Assign a Jira issue to a user, or unassign it. | key:string:Issue key; assignee?:string:Account id or email; leave out to unassign
jira_get_sprint | Show the active sprint of a Jira board: its goal, dates and the issues in it with their status. | board_id:integer:Board id
linear_create_issue | Create an issue in Linear for a team, with title, description, priority and labels. | team:string:Team key; title:string:Title; description?:string:Markdown description; priority?:integer:0 none, 1 urgent to 4 low
linear_list_my_issues | List the Linear issues assigned to the current user, grouped by state. | state?:string:Only issues in this workflow state
linear_update_issue_status | Change the workflow state of a Linear issue. | id:string:Issue identifier, e.g. ENG-123; state:string:New workflow state name
slack_post_message | Send a message to a Slack channel or a direct message as the bot user. Supports Slack mrkdwn formatting. | channel:string:Channel name (#general), channel id or user id; text:string:Message text; thread_ts?:string:Reply inside this thread
slack_list_channels | List public and private Slack channels the bot can see, with member counts and topics. | include_private?:boolean:Include private channels; limit?:integer:At most this many
slack_read_channel_history | Read the recent messages of a Slack channel, newest first. | channel:string:Channel name or id; limit?:integer:At most this many messages; oldest?:string:Only messages after this timestamp
slack_add_reaction | Add an emoji reaction to a Slack message. | channel:string:Channel id; timestamp:string:Message timestamp; emoji:string:Emoji name without colons
slack_upload_file | Upload a file to one or more Slack channels with an optional comment. | channels:string[]:Channel ids; path:string:Local file to upload; comment?:string:Initial comment
slack_set_status | Set the Slack status text and emoji of the current user, optionally expiring later. | text:string:Status text; emoji?:string:Status emoji; expires_minutes?:integer:Clear after this many minutes
discord_send_message | Send a message to a Discord channel through the configured bot. | channel_id:string:Channel id; content:string:Message text, up to 2000 characters
discord_create_thread | Start a new thread in a Discord channel from a message or as a standalone thread. | channel_id:string:Channel id; name:string:Thread name; message_id?:string:Message to start the thread from
gmail_search_messages | Search Gmail messages with Gmail search operators (from:, subject:, has:attachment, newer_than:). Returns message ids, senders, subjects and snippets. | query:string:Gmail search query; max_results?:integer:At most this many messages
gmail_get_message | Read a Gmail message in full: headers, plain-text body and the names of its attachments. | id:string:Message id
gmail_send_email | Send an email from the user's Gmail account. | to:string[]:Recipient addresses; subject:string:Subject line; body:string:Plain text or HTML body; cc?:string[]:Cc addresses; attachments?:string[]:Local files to attach
gmail_create_draft | Save an email as a draft in Gmail without sending it. | to:string[]:Recipient addresses; subject:string:Subject line; body:string:Body
gmail_add_label | Apply or remove Gmail labels on a message or thread. | id:string:Message or thread id; add?:string[]:Labels to add; remove?:string[]:Labels to remove
gmail_archive_thread | Archive a Gmail thread so it leaves the inbox. | thread_id:string:Thread id
calendar_list_events | List events in a Google Calendar between two times, with attendees, location and video links. | calendar_id?:string:Calendar id, default primary; time_min:string:ISO start of the range; time_max:string:ISO end of the range
calendar_create_event | Create a calendar event and send invitations to attendees, optionally with a video meeting link. | title:string:Event title; start:string:ISO start time; end:string:ISO end time; attendees?:string[]:Email addresses to invite; location?:string:Place; add_video_link?:boolean:Attach a Meet link
calendar_update_event | Change the time, title, attendees or location of an existing calendar event. | event_id:string:Event id; start?:string:New ISO start; end?:string:New ISO end; title?:string:New title
calendar_delete_event | Cancel a calendar event and notify its attendees. | event_id:string:Event id; notify?:boolean:Email the attendees
calendar_find_free_slots | Find times when all the given people are free, within working hours, for a meeting of a given length. | attendees:string[]:Email addresses; duration_minutes:integer:Length of the meeting; within_days?:integer:Search this many days ahead
drive_search_files | Search Google Drive files by name or full text, filtered by type or folder. Returns file ids, names, owners and modified times. | query:string:Words to search for; mime_type?:string:Only files of this MIME type; folder_id?:string:Only inside this folder
drive_upload_file | Upload a local file to Google Drive, optionally into a folder and converted to a Google Docs format. | path:string:Local file; folder_id?:string:Destination folder; convert?:boolean:Convert to Docs, Sheets or Slides
drive_share_file | Share a Google Drive file with people or make it available to anyone with the link. | file_id:string:File id; emails?:string[]:People to share with; role?:reader|commenter|writer:Permission
sheets_read_range | Read cell values from a Google Sheets spreadsheet range in A1 notation. | spreadsheet_id:string:Spreadsheet id; range:string:Range such as Sheet1!A1:D20
sheets_append_rows | Append rows to the end of a table in a Google Sheets spreadsheet. | spreadsheet_id:string:Spreadsheet id; range:string:Table range or sheet name; rows:string[]:Rows as comma-separated values
docs_create_document | Create a Google Docs document with a title and initial Markdown content. | title:string:Document title; content?:string:Markdown content
notion_search_pages | Search the Notion workspace for pages and databases by title and content. | query:string:Words to search for; filter?:page|database:Only pages or only databases
notion_create_page | Create a Notion page under a parent page or database, with Markdown content. | parent_id:string:Parent page or database id; title:string:Page title; content?:string:Markdown content
notion_query_database | Query a Notion database with filters and sorts and return its rows and properties. | database_id:string:Database id; filter?:string:Filter as JSON; sort_by?:string:Property to sort by
notion_append_block | Append paragraphs, to-dos or headings to the end of an existing Notion page. | page_id:string:Page id; content:string:Markdown to append
confluence_search | Search Confluence pages and blog posts with CQL or plain words. | query:string:CQL or words; space?:string:Space key
confluence_get_page | Read a Confluence page as Markdown with its title, version and labels. | page_id:string:Page id
confluence_create_page | Publish a new Confluence page in a space, optionally under a parent page. | space:string:Space key; title:string:Title; body:string:Content in Markdown; parent_id?:string:Parent page id
postgres_query | Run a read-only SQL query against the configured PostgreSQL database and return the rows as JSON. Statements that modify data are refused. | sql:string:A SELECT statement; params?:string[]:Positional parameters for $1, $2 ...; max_rows?:integer:At most this many rows
postgres_list_tables | List the tables and views of a PostgreSQL schema with their estimated row counts. | schema?:string:Schema name, default public
postgres_describe_table | Show the columns, types, indexes and foreign keys of a PostgreSQL table. | table:string:Table name, optionally schema-qualified
postgres_explain_query | Show the PostgreSQL query plan of a statement (EXPLAIN ANALYZE optional) to diagnose slow queries. | sql:string:The statement to explain; analyze?:boolean:Run it and report real timings
mysql_query | Run a SQL query on the configured MySQL or MariaDB server. | sql:string:SQL statement; database?:string:Database to use
sqlite_query | Run SQL against a local SQLite database file. | path:string:Database file; sql:string:SQL statement
mongo_find_documents | Find documents in a MongoDB collection matching a filter, with projection, sort and limit. | collection:string:Collection name; filter?:string:Filter as JSON; limit?:integer:At most this many documents
mongo_aggregate | Run a MongoDB aggregation pipeline on a collection. | collection:string:Collection name; pipeline:string:Pipeline stages as a JSON array
redis_get_key | Read the value of a Redis key (string, hash, list or set) and its time to live. | key:string:Key name
redis_set_key | Set a Redis string key, optionally with an expiry. | key:string:Key name; value:string:Value; ttl_seconds?:integer:Expire after this many seconds
elasticsearch_search | Search an Elasticsearch or OpenSearch index with a query string or a JSON query DSL body. | index:string:Index name or pattern; query:string:Query string or JSON body; size?:integer:Number of hits
docker_list_containers | List Docker containers with image, status, ports and uptime. | all?:boolean:Include stopped containers
docker_container_logs | Fetch the logs of a Docker container, optionally only the last lines or since a time. | container:string:Container name or id; tail?:integer:Only the last N lines; since?:string:Only logs after this time
docker_run_container | Start a new Docker container from an image with ports, environment variables and volumes. | image:string:Image name and tag; name?:string:Container name; ports?:string[]:Port mappings like 8080:80; env?:string[]:KEY=value pairs
docker_stop_container | Stop a running Docker container, and remove it if asked. | container:string:Container name or id; remove?:boolean:Remove after stopping
docker_build_image | Build a Docker image from a Dockerfile in a folder and tag it. | context:string:Build context folder; tag:string:Image tag; dockerfile?:string:Path of the Dockerfile
docker_prune_images | Remove dangling or unused Docker images to free disk space and report the space reclaimed. | all?:boolean:Remove all unused images, not only dangling ones
k8s_list_pods | List Kubernetes pods in a namespace with their status, restarts, node and age. | namespace?:string:Namespace, default "default"; selector?:string:Label selector, e.g. app=web
k8s_get_pod_logs | Get the logs of a Kubernetes pod's container, including the previous crashed instance. | pod:string:Pod name; namespace?:string:Namespace; container?:string:Container name; previous?:boolean:Logs of the previous instance
k8s_describe_deployment | Describe a Kubernetes deployment: replicas, rollout status, image versions and recent events. | name:string:Deployment name; namespace?:string:Namespace
k8s_scale_deployment | Change the number of replicas of a Kubernetes deployment. | name:string:Deployment name; replicas:integer:Desired replica count; namespace?:string:Namespace
k8s_rollout_restart | Restart all pods of a Kubernetes deployment with a rolling restart. | name:string:Deployment name; namespace?:string:Namespace
k8s_apply_manifest | Apply a Kubernetes YAML manifest to the cluster (kubectl apply), with a server-side dry run first if asked. | manifest:string:YAML manifest; dry_run?:boolean:Only validate
k8s_list_events | List recent Kubernetes events in a namespace, warnings first, to diagnose failing pods. | namespace?:string:Namespace; warnings_only?:boolean:Only warnings
helm_list_releases | List Helm releases in a cluster with chart versions and status. | namespace?:string:Namespace, or all namespaces when left out
s3_list_buckets | List the S3 buckets of the AWS account with their regions and creation dates. |
s3_list_objects | List objects in an S3 bucket under a prefix, with sizes and modification times. | bucket:string:Bucket name; prefix?:string:Key prefix; max_keys?:integer:At most this many
s3_upload_object | Upload a local file to Amazon S3 under a key, with an optional content type and storage class. | bucket:string:Bucket name; key:string:Object key; path:string:Local file; content_type?:string:MIME type
s3_download_object | Download an object from Amazon S3 to a local file. | bucket:string:Bucket name; key:string:Object key; path:string:Where to save it
s3_presign_url | Create a time-limited presigned URL to download or upload an S3 object without credentials. | bucket:string:Bucket name; key:string:Object key; expires_seconds?:integer:Validity; method?:GET|PUT:Operation
ec2_list_instances | List EC2 instances with their state, type, public IP and Name tag, in a region. | region?:string:AWS region; state?:running|stopped|all:Instance state
ec2_start_instance | Start a stopped EC2 instance. | instance_id:string:Instance id; region?:string:AWS region
ec2_stop_instance | Stop a running EC2 instance. | instance_id:string:Instance id; region?:string:AWS region; hibernate?:boolean:Hibernate instead of stopping
lambda_invoke_function | Invoke an AWS Lambda function with a JSON payload and return its response and logs. | function_name:string:Function name or ARN; payload?:string:JSON payload
cloudwatch_query_logs | Run a CloudWatch Logs Insights query over log groups for a time range. | log_groups:string[]:Log group names; query:string:Logs Insights query; start:string:ISO start; end:string:ISO end
bigquery_run_query | Run a Google BigQuery SQL query and return the result rows and bytes processed. | sql:string:Standard SQL query; project?:string:GCP project id; dry_run?:boolean:Only estimate the bytes processed
gcloud_run_deploy | Deploy a container image to Google Cloud Run as a new revision. | service:string:Service name; image:string:Container image; region:string:Region; env?:string[]:KEY=value pairs
azure_list_resource_groups | List Azure resource groups of a subscription with their locations. | subscription?:string:Subscription id
terraform_plan | Run terraform plan in a folder and summarise what would be added, changed and destroyed. | dir:string:Terraform folder; var_file?:string:Variables file
terraform_apply | Apply a saved Terraform plan. Asks for confirmation before changing infrastructure. | dir:string:Terraform folder; plan_file:string:Saved plan file
jenkins_trigger_build | Start a Jenkins job build with parameters and return the queue item. | job:string:Job name or path; parameters?:string[]:KEY=value build parameters
jenkins_get_build_log | Fetch the console output of a Jenkins build. | job:string:Job name; build:integer:Build number; tail?:integer:Only the last N lines
circleci_list_pipelines | List recent CircleCI pipelines of a project with their workflows and status. | project_slug:string:e.g. gh/owner/repo; branch?:string:Branch
sentry_list_issues | List unresolved Sentry issues of a project, most frequent first, with event counts and first and last seen times. | project:string:Project slug; query?:string:Sentry search, e.g. is:unresolved level:error; period?:string:Stats period, e.g. 24h
sentry_get_event | Get the latest event of a Sentry issue with its stack trace, breadcrumbs and tags. | issue_id:string:Issue id
sentry_resolve_issue | Mark a Sentry issue as resolved, optionally in the next release. | issue_id:string:Issue id; in_next_release?:boolean:Resolve in the next release
datadog_query_metrics | Query Datadog timeseries metrics (e.g. avg:system.cpu.user{service:web}) over a time range. | query:string:Metrics query; from:string:ISO start; to:string:ISO end
datadog_list_monitors | List Datadog monitors and their current state (OK, Warn, Alert, No Data). | tags?:string[]:Only monitors with these tags; state?:OK|Warn|Alert|No Data:State
datadog_mute_monitor | Mute a Datadog monitor for a while, e.g. during maintenance. | monitor_id:integer:Monitor id; minutes?:integer:Mute duration
pagerduty_list_incidents | List PagerDuty incidents that are triggered or acknowledged, with service, urgency and assignee. | statuses?:string[]:triggered, acknowledged or resolved; service_ids?:string[]:Only these services
pagerduty_acknowledge_incident | Acknowledge a PagerDuty incident so escalation stops. | incident_id:string:Incident id
grafana_render_panel | Render a Grafana dashboard panel as a PNG image for a time range. | dashboard_uid:string:Dashboard uid; panel_id:integer:Panel id; from?:string:Start, e.g. now-6h
prometheus_query | Evaluate a PromQL expression at a time or over a range on the Prometheus server. | query:string:PromQL expression; start?:string:ISO start for a range; end?:string:ISO end; step?:string:Resolution, e.g. 30s
uptime_check_status | Report the current status and uptime percentage of monitored websites. | monitor?:string:Monitor name; all when left out
http_request | Send an HTTP request with any method, headers and body, and return the status, headers and body. For testing APIs. | url:string:URL; method?:GET|POST|PUT|PATCH|DELETE:Method; headers?:string[]:Header lines; body?:string:Request body
web_screenshot | Take a screenshot of a web page in a headless browser, full page or viewport. | url:string:Page URL; full_page?:boolean:Capture the whole page; width?:integer:Viewport width
web_extract_links | Extract every link of a web page with its anchor text. | url:string:Page URL; same_domain?:boolean:Only links to the same site
rss_read_feed | Read the latest entries of an RSS or Atom feed. | url:string:Feed URL; limit?:integer:At most this many entries
url_shorten | Create a short link for a long URL. | url:string:Long URL; alias?:string:Custom alias
ssl_certificate_check | Check a host's TLS certificate: issuer, validity dates, days until expiry and the chain. | host:string:Host name; port?:integer:Port, default 443
dns_lookup | Resolve DNS records (A, AAAA, MX, TXT, CNAME, NS) for a domain. | domain:string:Domain name; type?:A|AAAA|MX|TXT|CNAME|NS:Record type
whois_lookup | Look up WHOIS registration data of a domain: registrar, creation and expiry dates, name servers. | domain:string:Domain name
ping_host | Ping a host and report packet loss and round-trip times. | host:string:Host name or IP; count?:integer:Number of packets
port_scan | Check which TCP ports are open on a host you are allowed to test. | host:string:Host; ports:string:Ports, e.g. 22,80,443 or 1-1024
weather_current | Current weather conditions at a place: temperature, feels-like, humidity, wind and description. | location:string:City name or lat,lon; units?:metric|imperial:Units
weather_forecast | Daily weather forecast for up to 10 days: highs, lows, chance of rain and wind. | location:string:City name or lat,lon; days?:integer:Number of days, 1-10; units?:metric|imperial:Units
air_quality_index | Current air quality index and pollutant levels (PM2.5, PM10, ozone) for a location. | location:string:City name or lat,lon
maps_geocode_address | Convert a street address into latitude and longitude coordinates. | address:string:Address to geocode
maps_reverse_geocode | Find the address of a latitude/longitude coordinate. | lat:number:Latitude; lon:number:Longitude
maps_directions | Get driving, walking, cycling or transit directions between two places with distance and travel time. | origin:string:Start address; destination:string:End address; mode?:driving|walking|bicycling|transit:Travel mode
maps_search_places | Search nearby places such as restaurants, pharmacies or gas stations around a location, with ratings and opening hours. | query:string:What to look for; near:string:Location; radius_m?:integer:Search radius in meters
timezone_lookup | Find the time zone and current local time of a place. | location:string:City or lat,lon
stock_quote | Latest price, change and volume of a stock or ETF by ticker symbol. | symbol:string:Ticker symbol, e.g. AAPL
stock_price_history | Daily open, high, low, close and volume of a stock over a date range. | symbol:string:Ticker symbol; from:string:Start date; to:string:End date
currency_convert | Convert an amount of money from one currency to another at the latest exchange rate. | amount:number:Amount; from:string:ISO currency code, e.g. EUR; to:string:ISO currency code, e.g. USD
crypto_price | Current price and 24h change of a cryptocurrency such as BTC or ETH in a fiat currency. | coin:string:Coin symbol; vs_currency?:string:Fiat currency, default usd
stripe_create_customer | Create a Stripe customer with email, name and metadata. | email:string:Customer email; name?:string:Full name; metadata?:string[]:key=value pairs
stripe_list_charges | List recent Stripe charges with amount, status and customer, optionally for one customer. | customer?:string:Customer id; limit?:integer:At most this many
stripe_refund_payment | Refund a Stripe payment in full or in part. | payment_intent:string:Payment intent id; amount?:integer:Amount to refund in cents; reason?:duplicate|fraudulent|requested_by_customer:Reason
stripe_create_invoice | Create and optionally send a Stripe invoice for a customer with line items. | customer:string:Customer id; items:string[]:Line items as description:amount_cents; send?:boolean:Email it now
quickbooks_create_expense | Record an expense in QuickBooks with vendor, amount, category and date. | vendor:string:Vendor name; amount:number:Amount; category:string:Expense account; date?:string:Date
salesforce_query_soql | Run a SOQL query against Salesforce and return the records. | soql:string:SOQL query
salesforce_update_record | Update fields of a Salesforce record (lead, contact, opportunity, account). | object:string:Object type, e.g. Opportunity; id:string:Record id; fields:string:Fields as JSON
hubspot_create_contact | Create a contact in HubSpot CRM with email, name, company and phone. | email:string:Email; first_name?:string:First name; last_name?:string:Last name; company?:string:Company
hubspot_search_deals | Search HubSpot deals by name, stage, owner or amount. | query?:string:Words in the deal name; stage?:string:Pipeline stage; owner?:string:Owner email
zendesk_create_ticket | Open a Zendesk support ticket on behalf of a customer. | subject:string:Subject; description:string:Problem description; requester_email:string:Customer email; priority?:low|normal|high|urgent:Priority
zendesk_list_tickets | List Zendesk support tickets by status, assignee or tag. | status?:new|open|pending|solved:Status; assignee?:string:Agent email
intercom_reply_conversation | Reply to a customer conversation in Intercom as an admin. | conversation_id:string:Conversation id; message:string:Reply text
image_resize | Resize an image to a width and height, keeping the aspect ratio unless told otherwise. | path:string:Image file; width?:integer:Target width in pixels; height?:integer:Target height in pixels; keep_aspect?:boolean:Keep the aspect ratio
image_convert_format | Convert an image between PNG, JPEG, WebP, AVIF and GIF. | path:string:Image file; format:png|jpeg|webp|avif|gif:Target format; quality?:integer:Quality 1-100
image_compress | Compress an image to reduce its file size with little visible loss. | path:string:Image file; quality?:integer:Quality 1-100
image_remove_background | Remove the background of a photo and save a transparent PNG. | path:string:Image file; output?:string:Where to save it
image_ocr | Recognise the text in an image or scanned page (OCR). | path:string:Image file; language?:string:Language code, e.g. eng
image_generate | Generate an image from a text prompt with the configured image model. | prompt:string:What to draw; size?:256x256|512x512|1024x1024:Image size; style?:string:Style hint
video_trim | Cut a clip out of a video between two timestamps without re-encoding. | path:string:Video file; start:string:Start time hh:mm:ss; end:string:End time hh:mm:ss
video_extract_audio | Extract the audio track of a video file as MP3 or WAV. | path:string:Video file; format?:mp3|wav:Audio format
audio_transcribe | Transcribe speech in an audio or video file to text with timestamps. | path:string:Audio or video file; language?:string:Spoken language
text_to_speech | Synthesize speech audio from text with a chosen voice. | text:string:Text to speak; voice?:string:Voice name; output:string:Where to save the audio
pdf_extract_text | Extract the text of a PDF file, page by page. | path:string:PDF file; pages?:string:Page range, e.g. 1-5
pdf_merge | Merge several PDF files into one, in the given order. | inputs:string[]:PDF files; output:string:Merged file
pdf_split_pages | Split a PDF into separate files, one per page or per range. | path:string:PDF file; ranges?:string[]:Page ranges
docx_to_markdown | Convert a Word .docx document to Markdown. | path:string:Word document
markdown_to_pdf | Render a Markdown file to a styled PDF. | path:string:Markdown file; output:string:PDF file; theme?:string:Style theme
csv_to_json | Convert a CSV file to a JSON array of objects using the header row as keys. | path:string:CSV file; delimiter?:string:Field delimiter
json_query | Query a JSON file or string with a jq expression. | input:string:JSON text or file path; expression:string:jq expression
excel_read_sheet | Read the cells of a sheet in an Excel .xlsx workbook as rows. | path:string:Workbook; sheet?:string:Sheet name; range?:string:Cell range
translate_text | Translate text into another language, detecting the source language automatically. | text:string:Text to translate; target:string:Target language code, e.g. de; source?:string:Source language code
detect_language | Detect which language a text is written in, with a confidence score. | text:string:Text
summarize_text | Summarize a long text into a few sentences or bullet points. | text:string:Text to summarize; style?:sentences|bullets:Output style; max_words?:integer:Length limit
spell_check | Find spelling and grammar mistakes in a text and suggest corrections. | text:string:Text; language?:string:Language code
sentiment_analysis | Classify the sentiment of a text as positive, negative or neutral with a score. | text:string:Text
extract_keywords | Extract the key phrases and named entities (people, organisations, places) from a text. | text:string:Text; max?:integer:At most this many
npm_package_info | Look up an npm package: latest version, description, weekly downloads, license and dependencies. | name:string:Package name; version?:string:A specific version
pypi_package_info | Look up a Python package on PyPI: latest version, summary, requirements and release history. | name:string:Package name
check_outdated_dependencies | List the outdated dependencies of a project's package.json or requirements.txt with current and latest versions. | path:string:Manifest file
regex_test | Test a regular expression against sample strings and show the matches and groups. | pattern:string:Regular expression; samples:string[]:Strings to test; flags?:string:Flags
json_schema_validate | Validate a JSON document against a JSON Schema and list the errors. | document:string:JSON document; schema:string:JSON Schema
uuid_generate | Generate one or more random UUIDs (v4) or time-ordered UUIDs (v7). | count?:integer:How many; version?:v4|v7:UUID version
hash_text | Compute the MD5, SHA-1, SHA-256 or SHA-512 hash of a text or file. | input:string:Text or file path; algorithm?:md5|sha1|sha256|sha512:Algorithm
base64_encode | Encode text to Base64, or decode Base64 back to text. | input:string:Text; decode?:boolean:Decode instead
jwt_decode | Decode a JSON Web Token and show its header, claims and expiry without verifying it. | token:string:The JWT
cron_explain | Explain a cron expression in plain words and list its next run times. | expression:string:Cron expression; count?:integer:Next runs to list
timestamp_convert | Convert between Unix timestamps, ISO 8601 dates and time zones. | value:string:Timestamp or date; to_timezone?:string:IANA time zone
text_diff | Show the differences between two texts as a unified diff. | a:string:Original text; b:string:Changed text
todoist_add_task | Add a task to Todoist with a due date, priority and project. | content:string:Task text; due?:string:Due date in natural language; project?:string:Project name; priority?:integer:1-4
todoist_list_tasks | List open Todoist tasks, optionally filtered by project or a Todoist filter such as "overdue". | filter?:string:Todoist filter; project?:string:Project name
trello_create_card | Create a card on a Trello list with a description, labels and due date. | list_id:string:List id; name:string:Card title; description?:string:Description; due?:string:Due date
trello_move_card | Move a Trello card to another list, e.g. from Doing to Done. | card_id:string:Card id; list_id:string:Destination list id
asana_create_task | Create a task in an Asana project and assign it. | project:string:Project id; name:string:Task name; assignee?:string:Assignee email; due_on?:string:Due date
twitter_post_tweet | Post a tweet (post on X) from the connected account, optionally as a reply. | text:string:Text, up to 280 characters; reply_to?:string:Tweet id to reply to
twitter_search_tweets | Search recent tweets on X by keywords, hashtags or accounts. | query:string:Search query; max_results?:integer:At most this many
reddit_search_posts | Search Reddit posts in all or specific subreddits, sorted by relevance, top or new. | query:string:Search words; subreddit?:string:Subreddit; sort?:relevance|top|new:Order
hackernews_top_stories | Get the current top stories on Hacker News with points and comment counts. | limit?:integer:At most this many
youtube_search_videos | Search YouTube videos and return titles, channels, durations and links. | query:string:Search words; max_results?:integer:At most this many
youtube_get_transcript | Get the transcript (captions) of a YouTube video. | video:string:Video URL or id; language?:string:Caption language
wikipedia_search | Search Wikipedia and return the summary of the best matching article. | query:string:Topic; language?:string:Wikipedia language, default en
arxiv_search_papers | Search arXiv for scientific papers by keywords, author or category and return titles, authors and abstracts. | query:string:Search words; max_results?:integer:At most this many
spotify_play_track | Play a song, album or playlist on the user's active Spotify device. | query:string:What to play; device?:string:Device name
spotify_search | Search Spotify for tracks, albums, artists or playlists. | query:string:Search words; type?:track|album|artist|playlist:What to search
home_assistant_toggle_light | Turn a Home Assistant light on or off, or set its brightness and color. | entity_id:string:Light entity, e.g. light.kitchen; state:on|off:Desired state; brightness?:integer:0-255
home_assistant_get_sensor | Read the current state of a Home Assistant sensor such as temperature or humidity. | entity_id:string:Sensor entity id
twilio_send_sms | Send an SMS text message to a phone number through Twilio. | to:string:Phone number in E.164 format; body:string:Message text
unit_convert | Convert a quantity between units of length, mass, volume, temperature, speed or data size. | value:number:Quantity; from:string:Unit, e.g. km; to:string:Unit, e.g. mi
calculator_evaluate | Evaluate a mathematical expression exactly, with functions like sqrt, log and trigonometry. | expression:string:Expression, e.g. 2^10 / sqrt(3)
`;

export interface CatalogTool {
  id: string;
  description: string;
  parameters: Record<string, unknown>;
}

interface Parameter {
  name: string;
  type: string;
  description: string;
  optional: boolean;
}

function parameterSchema(p: Parameter): Record<string, unknown> {
  if (p.type === "string[]") return { type: "array", items: { type: "string" }, description: p.description };
  if (p.type.includes("|")) return { type: "string", enum: p.type.split("|"), description: p.description };
  return { type: p.type, description: p.description };
}

function exampleValue(p: Parameter): unknown {
  if (p.type === "string[]") return [`<${p.name}>`];
  if (p.type.includes("|")) return p.type.split("|")[0];
  if (p.type === "integer" || p.type === "number") return 10;
  if (p.type === "boolean") return true;
  return `<${p.name}>`;
}

function firstSentence(text: string): string {
  const sentence = (text.split(/(?<=\.)\s/)[0] ?? text).replace(/\.$/, "");
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/**
 * A TOOL.md in the shape the bundled plugins use (when to use it, when not, examples), made
 * from the catalog line and the tool's siblings (tools with the same name prefix).
 */
function toolGuide(id: string, description: string, params: Parameter[], siblings: CatalogLine[]): string {
  const required = params.filter((p) => !p.optional);
  const all = Object.fromEntries(params.map((p) => [p.name, exampleValue(p)]));
  const minimal = Object.fromEntries(required.map((p) => [p.name, exampleValue(p)]));
  const lines = [`Use ${id} to ${firstSentence(description)}.`, ""];
  if (siblings.length > 0) {
    lines.push("Do not use it for neighbouring tasks:");
    for (const s of siblings.slice(0, 2)) lines.push(`- to ${firstSentence(s.description)}, use ${s.id};`);
    lines.push("");
  }
  lines.push("Examples:", `- \`${JSON.stringify(minimal)}\` with only the required arguments.`);
  if (params.length > required.length) lines.push(`- \`${JSON.stringify(all)}\` with every argument.`);
  if (params.some((p) => p.optional)) {
    lines.push("", `Optional arguments fall back to the service's defaults when left out.`);
  }
  lines.push("Errors from the service are returned with their message; check the arguments and call again.");
  return lines.join("\n");
}

interface CatalogLine {
  id: string;
  description: string;
  params: Parameter[];
}

function parseLine(line: string): CatalogLine {
  const [id = "", description = "", specs = ""] = line.split(/ \|(?: |$)/).map((s) => s.trim());
  const params = specs
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((spec): Parameter => {
      const [rawName = "", type = "string", ...rest] = spec.split(":");
      const optional = rawName.endsWith("?");
      return { name: optional ? rawName.slice(0, -1) : rawName, type, description: rest.join(":"), optional };
    });
  return { id, description, params };
}

/**
 * The catalog as tool definitions with strict JSON Schemas. With `guides` (the default), each
 * description is followed by a TOOL.md, as a Lathe plugin's is; without, the one-line
 * description alone.
 */
export function pluginCatalog(options: { guides?: boolean } = {}): CatalogTool[] {
  const lines = CATALOG.trim().split("\n").map(parseLine);
  const prefix = (id: string) => id.split("_")[0];
  return lines.map(({ id, description, params }) => {
    const siblings = lines.filter((l) => l.id !== id && prefix(l.id) === prefix(id));
    const properties = Object.fromEntries(params.map((p) => [p.name, parameterSchema(p)]));
    const required = params.filter((p) => !p.optional).map((p) => p.name);
    return {
      id,
      description:
        options.guides === false
          ? description
          : `${description}\n\n${toolGuide(id, description, params, siblings)}`,
      parameters: { type: "object", properties, required, additionalProperties: false },
    };
  });
}
