import HTTPTypes
import Hummingbird

/// What a controller with pages and forms is given (#49: only what it uses, not all of
/// `WebServices`): the templates, and the key behind every form's CSRF token.
struct PageForms: Sendable {
    let resources: WebResources
    let csrf: CSRFTokens

    /// Renders a template (`WebResources.page`).
    func page(_ name: String, _ object: Any) throws -> HTML { try resources.page(name, object) }

    /// A page with a form on it: `view` is made with this browser's CSRF token, and a browser
    /// without the token's cookie gets it with the page.
    func formPage(_ template: String, for request: Request, status: HTTPResponse.Status = .ok, view: (_ csrf: String) throws -> Any) throws -> Response {
        let (token, cookie) = csrf.token(for: request)
        return try resources.page(template, view(token)).response(setting: cookie, status: status)
    }

    /// The form a page sent to change something: read within `limit` (413 past it) and its
    /// CSRF token checked (403) before anything else looks at it.
    func changeForm(_ request: Request, limit: Int = FormBody.maximumBytes) async throws -> FormBody {
        let form = try await FormBody.read(request, limit: limit)
        try csrf.check(request, sent: form.value(CSRFTokens.fieldName))
        return form
    }
}
