/** The GitHub MCP server's tools, with schemas shaped like its real `tools/list` answer. */
import type { AnyTool, JsonSchema } from "../../src/core/tools/tool.ts";
import { bool, inputSchema, mcpTool, num, str, strArray, strEnum } from "./mcp-schema.ts";

const OWNER = str("Repository owner (username or organization)");
const REPO = str("Repository name");
const ISSUE_NUMBER = num("The number of the issue");
const PULL_NUMBER = num("Pull request number");
const PAGE = num("Page number for pagination (min 1)");
const PER_PAGE = num("Results per page for pagination (min 1, max 100)");

export function githubMcpTools(): AnyTool[] {
  const gh = (name: string, description: string, schema: JsonSchema, result: string) =>
    mcpTool("github", name, description, schema, result);
  return [
    gh(
      "create_or_update_file",
      "Create or update a single file in a GitHub repository. If updating, you must provide the SHA of the file you want to update. Use this tool to create or update a file in a GitHub repository remotely; if you are working on a local clone, commit with git instead.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          path: str("Path where to create/update the file"),
          content: str("Content of the file"),
          message: str("Commit message"),
          branch: str("Branch to create/update the file in"),
          sha: str(
            "Required if updating an existing file. The blob SHA of the file being replaced. Get it with get_file_contents.",
          ),
        },
        ["owner", "repo", "path", "content", "message", "branch"],
      ),
      '{"commit":{"sha":"3f1c2d9","message":"Update README.md"}}',
    ),
    gh(
      "search_repositories",
      "Find GitHub repositories by name, description, readme, topics, language, stars or other metadata. Returns full name, description, stars, language and last push for each match.",
      inputSchema(
        {
          query: str(
            "Repository search query. Examples: 'machine learning in:name stars:>1000 language:python', 'topic:react', 'user:facebook'. Supports advanced search syntax for precise filtering.",
          ),
          page: PAGE,
          perPage: PER_PAGE,
        },
        ["query"],
      ),
      '{"total_count":2,"items":[{"full_name":"acme/web","stargazers_count":812}]}',
    ),
    gh(
      "get_file_contents",
      "Get the contents of a file or directory from a GitHub repository. Files are returned decoded as text with their SHA; directories are returned as a listing of entries with type, size and path.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          path: str("Path to file/directory (directories must end with a slash '/')"),
          branch: str("Branch to get contents from; defaults to the repository's default branch"),
          ref: str(
            "Accepts optional git refs such as `refs/tags/{tag}`, `refs/heads/{branch}` or `refs/pull/{pr_number}/head`",
          ),
        },
        ["owner", "repo", "path"],
      ),
      '{"type":"file","path":"README.md","sha":"a1b2c3","content":"# Acme web"}',
    ),
    gh(
      "push_files",
      "Push multiple files to a GitHub repository in a single commit. Creates the commit on top of the branch head; fails if the branch does not exist.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          branch: str("Branch to push to (e.g., 'main' or 'master')"),
          files: {
            type: "array",
            items: {
              type: "object",
              properties: {
                path: str("Path of the file relative to the repository root"),
                content: str("Full content of the file"),
              },
              required: ["path", "content"],
              additionalProperties: false,
            },
            description: "Array of file objects to push, each with path and content",
          },
          message: str("Commit message"),
        },
        ["owner", "repo", "branch", "files", "message"],
      ),
      '{"ref":"refs/heads/main","object":{"sha":"9e8d7c6"}}',
    ),
    gh(
      "create_issue",
      "Create a new issue in a GitHub repository. Use it when the user asks to file a bug, feature request or task. Returns the issue number and URL.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          title: str("Issue title"),
          body: str("Issue body content, in GitHub-flavoured Markdown"),
          assignees: strArray("Usernames to assign to this issue"),
          milestone: num("Milestone number"),
          labels: strArray("Labels to apply to this issue"),
          type: str("Type of this issue, if the organization has issue types configured"),
        },
        ["owner", "repo", "title"],
      ),
      '{"number":2232,"html_url":"https://github.com/acme/web/issues/2232"}',
    ),
    gh(
      "list_issues",
      "List issues in a GitHub repository with filtering options. Pull requests are excluded. For searching across repositories or by text, use search_issues instead.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          state: strEnum(["open", "closed", "all"], "Filter by state, by default open issues"),
          labels: strArray("Filter by labels; an issue must have all of them"),
          sort: strEnum(["created", "updated", "comments"], "Sort order"),
          direction: strEnum(["asc", "desc"], "Sort direction"),
          since: str(
            "Filter by date (ISO 8601 timestamp); only issues updated at or after this time",
          ),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["owner", "repo"],
      ),
      '[{"number":2231,"title":"Crash on login with SSO","state":"open"}]',
    ),
    gh(
      "update_issue",
      "Update an existing issue in a GitHub repository: title, body, state, labels, assignees or milestone. Fields left out are not changed; labels and assignees replace the current lists.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          issue_number: num("Issue number to update"),
          title: str("New title"),
          body: str("New description"),
          assignees: strArray("New assignees"),
          milestone: num("New milestone number"),
          labels: strArray("New labels"),
          state: strEnum(["open", "closed"], "New state"),
          state_reason: strEnum(
            ["completed", "not_planned", "duplicate", "reopened"],
            "Reason for the state change; only with state",
          ),
        },
        ["owner", "repo", "issue_number"],
      ),
      '{"number":2231,"state":"closed"}',
    ),
    gh(
      "get_issue",
      "Get details of a specific issue in a GitHub repository: title, body, state, labels, assignees, milestone, reactions and timestamps.",
      inputSchema({ owner: OWNER, repo: REPO, issue_number: ISSUE_NUMBER }, [
        "owner",
        "repo",
        "issue_number",
      ]),
      '{"number":2231,"title":"Crash on login with SSO","body":"Steps to reproduce..."}',
    ),
    gh(
      "add_issue_comment",
      "Add a comment to a specific issue in a GitHub repository. Use this tool to add comments to pull requests as well (pass the pull request number as issue_number), but only if the user is not asking specifically to add review comments.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          issue_number: num("Issue number to comment on"),
          body: str("Comment content, in GitHub-flavoured Markdown"),
        },
        ["owner", "repo", "issue_number", "body"],
      ),
      '{"id":190211,"html_url":"https://github.com/acme/web/issues/2231#issuecomment-190211"}',
    ),
    gh(
      "search_issues",
      "Search for issues and pull requests across GitHub repositories using GitHub's issue search syntax. Scope the query with repo:, org: or user: qualifiers to keep results relevant.",
      inputSchema(
        {
          q: str(
            "Search query using GitHub issues search syntax, e.g. 'repo:acme/web is:open label:bug author:dana'",
          ),
          sort: strEnum(
            [
              "comments",
              "reactions",
              "reactions-+1",
              "reactions--1",
              "reactions-smile",
              "reactions-thinking_face",
              "reactions-heart",
              "reactions-tada",
              "interactions",
              "created",
              "updated",
            ],
            "Sort field by number of matches of categories, defaults to best match",
          ),
          order: strEnum(["asc", "desc"], "Sort order"),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["q"],
      ),
      '{"total_count":1,"items":[{"number":2231,"title":"Crash on login with SSO"}]}',
    ),
    gh(
      "search_code",
      "Fast and precise code search across ALL GitHub repositories using GitHub's native search engine. Best for finding exact symbols, functions, classes, or specific code patterns.",
      inputSchema(
        {
          q: str(
            "Search query using GitHub's powerful code search syntax. Examples: 'content:Skill language:Java org:github', 'NOT is:archived language:Python OR language:go', 'repo:github/github-mcp-server'. Supports exact matching, language filters, path filters, and more.",
          ),
          order: strEnum(["asc", "desc"], "Sort order for results"),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["q"],
      ),
      '{"total_count":3,"items":[{"path":"src/auth/sso.ts","repository":{"full_name":"acme/web"}}]}',
    ),
    gh(
      "create_pull_request",
      "Create a new pull request in a GitHub repository from a head branch into a base branch. Push the head branch first; use draft for work in progress.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          title: str("Pull request title"),
          body: str("Pull request body/description"),
          head: str("The name of the branch where your changes are implemented"),
          base: str("The name of the branch you want the changes pulled into"),
          draft: bool("Whether to create the pull request as a draft"),
          maintainer_can_modify: bool("Whether maintainers can modify the pull request"),
        },
        ["owner", "repo", "title", "head", "base"],
      ),
      '{"number":418,"html_url":"https://github.com/acme/web/pull/418"}',
    ),
    gh(
      "list_pull_requests",
      "List pull requests in a GitHub repository, filtered by state, head and base branch. If the user specifies an author, use search_issues with is:pr author:<user> instead.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          state: strEnum(["open", "closed", "all"], "State of the pull requests to return"),
          head: str("Filter by head user or head organization and branch name (user:ref-name)"),
          base: str("Filter by base branch name"),
          sort: strEnum(
            ["created", "updated", "popularity", "long-running"],
            "What to sort results by",
          ),
          direction: strEnum(["asc", "desc"], "The direction of the sort"),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["owner", "repo"],
      ),
      '[{"number":418,"title":"Fix SSO crash","state":"open","draft":false}]',
    ),
    gh(
      "get_pull_request",
      "Get details of a specific pull request: title, body, state, head and base, mergeability, review decision and counts of commits, additions and deletions.",
      inputSchema({ owner: OWNER, repo: REPO, pull_number: PULL_NUMBER }, [
        "owner",
        "repo",
        "pull_number",
      ]),
      '{"number":418,"mergeable":true,"head":{"ref":"fix/sso"},"base":{"ref":"main"}}',
    ),
    gh(
      "merge_pull_request",
      "Merge a pull request in a GitHub repository. Fails if required checks or reviews are missing, or if the branch has conflicts.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          pull_number: PULL_NUMBER,
          commit_title: str("Title for the automatic commit message"),
          commit_message: str("Extra detail to append to automatic commit message"),
          merge_method: strEnum(["merge", "squash", "rebase"], "Merge method to use"),
        },
        ["owner", "repo", "pull_number"],
      ),
      '{"merged":true,"sha":"5d4c3b2"}',
    ),
    gh(
      "create_pull_request_review",
      "Create a review on a pull request: approve, request changes, or comment, optionally with line comments.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          pull_number: PULL_NUMBER,
          commit_id: str("The SHA of the commit that needs a review"),
          body: str("The body text of the review"),
          event: strEnum(["APPROVE", "REQUEST_CHANGES", "COMMENT"], "The review action to perform"),
          comments: {
            type: "array",
            items: {
              anyOf: [
                {
                  type: "object",
                  properties: {
                    path: str("The relative path to the file being commented on"),
                    position: num(
                      "The position in the diff where you want to add a review comment",
                    ),
                    body: str("Text of the review comment"),
                  },
                  required: ["path", "position", "body"],
                  additionalProperties: false,
                },
                {
                  type: "object",
                  properties: {
                    path: str("The relative path to the file being commented on"),
                    line: num("The line number in the file where you want to add a review comment"),
                    body: str("Text of the review comment"),
                  },
                  required: ["path", "line", "body"],
                  additionalProperties: false,
                },
              ],
            },
            description:
              "Comments to post as part of the review (specify either position or line, not both)",
          },
        },
        ["owner", "repo", "pull_number", "body", "event"],
      ),
      '{"id":88123,"state":"APPROVED"}',
    ),
    gh(
      "get_pull_request_files",
      "Get the list of files changed in a pull request, with status, additions, deletions and the patch for each file.",
      inputSchema({ owner: OWNER, repo: REPO, pull_number: PULL_NUMBER }, [
        "owner",
        "repo",
        "pull_number",
      ]),
      '[{"filename":"src/auth/sso.ts","status":"modified","additions":12,"deletions":3}]',
    ),
    gh(
      "create_branch",
      "Create a new branch in a GitHub repository, from another branch or from the repository's default branch.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          branch: str("Name for the new branch"),
          from_branch: str(
            "Optional: source branch to create from (defaults to the repository's default branch)",
          ),
        },
        ["owner", "repo", "branch"],
      ),
      '{"ref":"refs/heads/fix/sso","object":{"sha":"9e8d7c6"}}',
    ),
    gh(
      "list_commits",
      "Get list of commits of a branch in a GitHub repository. Returns at least 30 results per page by default, but can return more if specified using the perPage parameter (up to 100).",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          sha: str(
            "Commit SHA, branch or tag name to list commits of. If not provided, uses the default branch of the repository.",
          ),
          author: str("Author username or email address to filter commits by"),
          page: PAGE,
          perPage: PER_PAGE,
        },
        ["owner", "repo"],
      ),
      '[{"sha":"9e8d7c6","commit":{"message":"Fix SSO crash","author":{"name":"Dana"}}}]',
    ),
  ];
}
